"""Another Muster installation for the archive tests: an empty database of its own (a SQLite file,
or a scratch PostgreSQL database when the suite runs on PostgreSQL), migrated, and driven with
``manage.py`` in subprocesses; and a reader that answers every GET endpoint of a campaign the
same way in both installations, so that their bodies can be compared.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver

ROOT = Path(__file__).resolve().parents[2]


class Installation:
    """An installation with an empty, migrated database."""

    def __init__(self, database_url: str, var_dir: Path) -> None:
        self.database_url = database_url
        self.var_dir = var_dir

    def manage(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL",)}
        env.update(
            DATABASE_URL=self.database_url,
            MUSTER_VAR_DIR=str(self.var_dir),
            DJANGO_SETTINGS_MODULE="config.settings.test",
        )
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if check:
            assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
        return done

    def python(self, code: str) -> str:
        """Run Python in the installation (``manage.py shell``); its standard output."""
        return self.manage("shell", "--no-imports", "-c", code).stdout


def _postgres() -> dict[str, Any] | None:
    database = settings.DATABASES["default"]
    return database if database["ENGINE"].endswith("postgresql") else None


@contextlib.contextmanager
def empty_installation(var_dir: Path) -> Iterator[Installation]:
    """An installation on the suite's kind of database, migrated; dropped afterwards."""
    database = _postgres()
    if database is None:
        installation = Installation(f"sqlite:///{var_dir / 'muster.sqlite3'}", var_dir)
        installation.manage("migrate", "--no-input", "-v", "0")
        yield installation
        return
    import psycopg

    name = f"muster_archive_{uuid.uuid4().hex[:8]}"
    host, port = database.get("HOST") or "127.0.0.1", str(database.get("PORT") or 5432)
    user, password = database.get("USER") or "postgres", database.get("PASSWORD") or ""
    credentials = user + (f":{password}" if password else "")
    server = f"postgres://{credentials}@{host}:{port}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    installation = Installation(f"{server}/{name}", var_dir)
    try:
        installation.manage("migrate", "--no-input", "-v", "0")
        yield installation
    finally:
        with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# --- Every read endpoint of a campaign -------------------------------------------------------


def _routes(patterns: list[Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.callback


def _reads_with_get(callback: Any) -> bool:
    view = getattr(callback, "view_class", None) or getattr(callback, "cls", None)
    return view is not None and hasattr(view, "get")


# Routes that are not the campaign's (accounts, the schema, the installation's catalogues of
# event types and rulesets, which tests may extend in this process) or not JSON (the archive
# itself).
_NOT_THE_CAMPAIGNS = (
    "api/v1/auth/",
    "api/v1/schema/",
    "api/v1/docs/",
    "api/v1/event-types/",
    "api/v1/rulesets/",
    "/export/",
)


def read_urls(ids: dict[str, list[str]], *, as_of: list[int], battle_ids: list[str]) -> list[str]:
    """Every GET endpoint of the API, with each id parameter taken from ``ids`` (a parameter
    with no ids leaves its route out), and every campaign-level or roster read again as of
    the given sequences and around each battle."""
    urls: list[str] = []
    for route, callback in _routes(get_resolver().url_patterns):
        if not route.startswith("api/v1/") or not _reads_with_get(callback):
            continue
        if any(part in route for part in _NOT_THE_CAMPAIGNS):
            continue
        expanded = [route]
        for converter, name in _parameters(route):
            values = ids.get(name)
            if not values:
                expanded = []
                break
            expanded = [
                url.replace(f"<{converter}:{name}>", value) for url in expanded for value in values
            ]
        for url in expanded:
            urls.append(f"/{url}")
            if url.startswith(("api/v1/campaigns/", "api/v1/forces/", "api/v1/units/")):
                urls.extend(f"/{url}?as_of={sequence}" for sequence in as_of)
            if url.startswith("api/v1/forces/"):
                urls.extend(
                    f"/{url}?as_of_battle={battle}&side={side}"
                    for battle in battle_ids
                    for side in ("before", "after")
                )
    return urls


def _parameters(route: str) -> list[tuple[str, str]]:
    found = []
    rest = route
    while "<" in rest:
        inside, _, rest = rest.partition("<")[2].partition(">")
        converter, _, name = inside.partition(":")
        found.append((converter, name))
    return found


def read_all(urls: list[str], usernames: list[str]) -> dict[str, dict[str, list[Any]]]:
    """Every URL as each user reads it: ``{username: {url: [status, body]}}``."""
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    from accounts.tokens import token_issue

    answers: dict[str, dict[str, list[Any]]] = {}
    for username in usernames:
        user = get_user_model().objects.get(username=username)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=user, name='read').secret}")
        seen: dict[str, list[Any]] = {}
        for url in urls:
            response = client.get(url)
            is_json = response.get("Content-Type", "").startswith("application/json")
            seen[url] = [response.status_code, _comparable(response.json()) if is_json else None]
        answers[username] = seen
    return answers


def _comparable(body: Any) -> Any:
    """The body without what belongs to the installation rather than the campaign: an event's
    ``position`` counts every event the database holds, of every campaign (ADR 15), and the
    ``key`` of a history or service-record row is made from it."""
    if isinstance(body, dict):
        installation_own = set()
        if {"sequence", "stream", "type", "position"} <= body.keys():
            installation_own.add("position")
        if {"sequence", "event_type", "key"} <= body.keys():
            installation_own.add("key")
        return {
            key: _comparable(value) for key, value in body.items() if key not in installation_own
        }
    if isinstance(body, list):
        return [_comparable(item) for item in body]
    return body


def read_in(installation: Installation, urls: list[str], usernames: list[str]) -> dict:
    """:func:`read_all` in another installation."""
    asked = installation.var_dir / "asked.json"
    asked.write_text(json.dumps({"urls": urls, "users": usernames}))
    out = installation.python(
        f"from tests.campaigns.installation import main; main({str(asked)!r})"
    )
    return json.loads(out)


def main(asked_path: str) -> None:
    """Run in an installation (``manage.py shell -c``): read the URLs and users in the given
    file, print the answers as JSON."""
    asked = json.loads(Path(asked_path).read_text())
    print(json.dumps(read_all(asked["urls"], asked["users"])))
