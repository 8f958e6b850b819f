"""The deployment's database roles and backups on the real PostgreSQL (ADR 0001).

``deploy/postgres/roles.sql`` makes an owner that runs the migrations and an application role
that the service connects as: the demo campaign plays through under the application role, which
cannot TRUNCATE the event log nor change the schema. ``deploy/postgres/backup.sh`` dumps the
database; the dump restores into an empty database whose projections rebuild to the same rows.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

pytestmark = pytest.mark.services

ROOT = Path(__file__).resolve().parents[2]


def _server() -> dict[str, str]:
    database = settings.DATABASES["default"]
    return {"host": database.get("HOST") or "127.0.0.1", "port": str(database.get("PORT") or 5432)}


def _url(role: str, database: str) -> str:
    server = _server()
    return f"postgres://{role}:secret@{server['host']}:{server['port']}/{database}"


def _superuser() -> str:
    return settings.DATABASES["default"].get("USER") or "postgres"


def _psql(*args: str) -> None:
    server = _server()
    subprocess.run(
        ["psql", "-h", server["host"], "-p", server["port"], "-U", _superuser(), "-X", "-q", *args],
        check=True,
        capture_output=True,
        text=True,
    )


def _manage(database_url: str, *args: str, var_dir: Path) -> str:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DATABASE_URL": database_url,
        "MUSTER_VAR_DIR": str(var_dir),
    }
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture
def roles(tmp_path) -> Iterator[dict[str, str]]:
    suffix = uuid.uuid4().hex[:8]
    names = {
        "owner": f"muster_owner_{suffix}",
        "app": f"muster_app_{suffix}",
        "database": f"muster_roles_{suffix}",
        "restored": f"muster_restored_{suffix}",
    }
    _psql(
        "-d", "postgres",
        "-v", f"owner_role={names['owner']}", "-v", "owner_password=secret",
        "-v", f"app_role={names['app']}", "-v", "app_password=secret",
        "-v", f"database={names['database']}",
        "-f", str(ROOT / "deploy/postgres/roles.sql"),
    )  # fmt: skip
    try:
        yield names
    finally:
        for database in (names["database"], names["restored"]):
            _psql("-d", "postgres", "-c", f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        for role in (names["app"], names["owner"]):
            _psql("-d", "postgres", "-c", f'DROP ROLE IF EXISTS "{role}"')


def _counts(url: str) -> dict[str, int]:
    with psycopg.connect(url) as connection:
        return {
            table: connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # type: ignore[index]
            for table in ("eventlog_event", "rosters_unit", "rosters_trooper", "battles_battle")
        }


def test_the_service_runs_as_a_role_that_cannot_truncate_or_alter_the_log(roles, tmp_path):
    owner_url = _url(roles["owner"], roles["database"])
    app_url = _url(roles["app"], roles["database"])
    _manage(owner_url, "migrate", "--no-input", "-v", "0", var_dir=tmp_path)
    _manage(app_url, "demo", var_dir=tmp_path)

    with psycopg.connect(app_url, autocommit=True) as app:
        events = app.execute("SELECT count(*) FROM eventlog_event").fetchone()[0]  # type: ignore[index]
        assert events > 100
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            app.execute("TRUNCATE eventlog_event")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            app.execute("CREATE TABLE intruder (id int)")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            app.execute("ALTER TABLE eventlog_event DISABLE TRIGGER ALL")
        with pytest.raises(psycopg.Error, match="append-only"):
            app.execute("DELETE FROM eventlog_event")
        assert app.execute("SELECT count(*) FROM eventlog_event").fetchone()[0] == events  # type: ignore[index]


def test_a_backup_restores_into_an_empty_database_and_rebuilds_the_same_rows(roles, tmp_path):
    owner_url = _url(roles["owner"], roles["database"])
    _manage(owner_url, "migrate", "--no-input", "-v", "0", var_dir=tmp_path)
    _manage(_url(roles["app"], roles["database"]), "demo", var_dir=tmp_path)
    backups = tmp_path / "backups"
    subprocess.run(
        ["sh", str(ROOT / "deploy/postgres/backup.sh")],
        env={
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "BACKUP_DATABASE_URL": owner_url,
            "BACKUP_DIR": str(backups),
            "BACKUP_ONCE": "1",
        },
        check=True,
        capture_output=True,
    )
    (dump,) = backups.glob("muster-*.dump")

    _psql("-d", "postgres", "-c", f'CREATE DATABASE "{roles["restored"]}" OWNER "{roles["owner"]}"')
    restored_url = _url(roles["owner"], roles["restored"])
    subprocess.run(
        ["pg_restore", "--exit-on-error", "--no-owner", "--dbname", restored_url, str(dump)],
        check=True,
        capture_output=True,
    )
    assert _counts(restored_url) == _counts(owner_url)
    _manage(restored_url, "rebuild_projections", "--no-progress", var_dir=tmp_path)
    assert _counts(restored_url) == _counts(owner_url)
