"""Issuing, checking, revoking and rotating API tokens.

A secret is ``mst_`` and 48 random hexadecimal digits (192 bits): far beyond guessing, so a plain
SHA-256 of it is enough to find it again and nothing slower is needed. The secret itself is given
to the caller once and never stored.

A token dies with a password change the way Django's sessions do: it keeps a keyed hash of the
password hash it was made under, and stops matching when the user's password hash changes
(``set_password``, ``manage.py changepassword``, the admin, a hasher upgrade).
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from rest_framework.exceptions import AuthenticationFailed

from accounts.models import ApiToken
from eventlog.errors import CommandError, NotFound, StateConflict
from eventlog.store import hot_read_one

SECRET_PREFIX = "mst_"
SECRET_BYTES = 24
SHOWN_PREFIX_LENGTH = len(SECRET_PREFIX) + 8
MAX_NAME_LENGTH = 100
# A token's last use is written at most this often, not on every request.
LAST_USED_RESOLUTION = dt.timedelta(minutes=1)


# A query of one value and its parameters, asked inside the token's statement.
Along = tuple[str, Sequence[Any]]


class TokenState(StrEnum):
    ACTIVE = "active"
    EXPIRED = "expired"
    REVOKED = "revoked"
    PASSWORD_CHANGED = "password_changed"


@dataclass(frozen=True)
class IssuedToken:
    """A token just made, and its secret: the only time the secret is known."""

    token: ApiToken
    secret: str


def digest_of(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def password_fingerprint(password_hash: str) -> str:
    """A keyed hash of a user's password hash: it changes when the password does."""
    return _fingerprint(settings.SECRET_KEY, password_hash)


@functools.lru_cache(maxsize=1024)
def _fingerprint(secret_key: str, password_hash: str) -> str:
    # Every token request checks one, for the same few users: remembered by the process. The
    # key is part of what is remembered, so a changed SECRET_KEY is never answered from before.
    return salted_hmac(
        "muster.accounts.token.password", password_hash, secret=secret_key, algorithm="sha256"
    ).hexdigest()


def default_lifetime_days() -> int:
    return int(settings.MUSTER_TOKEN_LIFETIME_DAYS)


def max_lifetime_days() -> int:
    return int(settings.MUSTER_TOKEN_MAX_LIFETIME_DAYS)


def check_lifetime(days: int | None, *, field: str = "expires_in_days") -> int:
    """The lifetime asked for, in days, or the default one; refused outside 1 to the maximum."""
    if days is None:
        return default_lifetime_days()
    longest = max_lifetime_days()
    if not 1 <= days <= longest:
        raise CommandError(
            "token.lifetime",
            f"A token lives from 1 to {longest} days.",
            field=field,
        )
    return days


def check_name(name: str) -> str:
    name = name.strip()
    if not name:
        raise CommandError("token.name", "Give the token a name.", field="name")
    if len(name) > MAX_NAME_LENGTH:
        raise CommandError(
            "token.name", f"Keep the name to {MAX_NAME_LENGTH} characters.", field="name"
        )
    return name


def token_issue(
    *,
    user: AbstractBaseUser,
    name: str,
    read_only: bool = False,
    expires_in_days: int | None = None,
) -> IssuedToken:
    """A new token for ``user``, expiring after ``expires_in_days`` (the configured default
    when not given); its secret is in the result and nowhere else."""
    now = timezone.now()
    secret = SECRET_PREFIX + secrets.token_hex(SECRET_BYTES)
    token = ApiToken.objects.create(
        user_id=user.pk,
        name=check_name(name),
        prefix=secret[:SHOWN_PREFIX_LENGTH],
        digest=digest_of(secret),
        read_only=read_only,
        password_fingerprint=password_fingerprint(user.password),
        created_at=now,
        expires_at=now + dt.timedelta(days=check_lifetime(expires_in_days)),
    )
    return IssuedToken(token=token, secret=secret)


def token_state(token: ApiToken, *, now: dt.datetime | None = None) -> TokenState:
    """Whether the token still opens the API, and if not, why not."""
    if token.revoked_at is not None:
        return TokenState.REVOKED
    if (now or timezone.now()) >= token.expires_at:
        return TokenState.EXPIRED
    if not constant_time_compare(
        token.password_fingerprint, password_fingerprint(token.user.password)
    ):
        return TokenState.PASSWORD_CHANGED
    return TokenState.ACTIVE


_REFUSALS = {
    TokenState.REVOKED: "This token was revoked.",
    TokenState.EXPIRED: "This token has expired: ask for a new one.",
    TokenState.PASSWORD_CHANGED: "The password changed after this token was made: log in again.",
}


def token_authenticate(secret: str) -> ApiToken:
    """The live token whose secret this is, or a 401 saying why it does not open the API."""
    token, _ = token_authenticate_asking(secret, None)
    return token


def token_authenticate_asking(secret: str, along: Along | None) -> tuple[ApiToken, Any]:
    """:func:`token_authenticate`, asking ``along`` (a one-value query and its parameters) in
    the same statement as the token: a request that needs one more value read before its work
    (a kept read's log position) then costs one round trip to the database, not two. The
    value is read whatever the token's state, but returned only with a live token."""
    found = _token_with_user(digest_of(secret), along) if secret.startswith(SECRET_PREFIX) else None
    if found is None:
        raise AuthenticationFailed("Invalid token.", code="token.invalid")
    token, answer = found
    now = timezone.now()
    state = token_state(token, now=now)
    if state is not TokenState.ACTIVE:
        raise AuthenticationFailed(_REFUSALS[state], code=f"token.{state.value}")
    if not token.user.is_active:
        raise AuthenticationFailed("This account is disabled.", code="token.user_inactive")
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        token.last_used_at = now
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token, answer


class _RowReader:
    """Model instances from the columns of a query written out, converted as the ORM's compiler
    converts them (SQLite hands out text for a UUID or a timestamp)."""

    def __init__(self, model: type[Model], table_alias: str) -> None:
        self.model = model
        self.fields: list[Field] = list(model._meta.concrete_fields)
        self.attnames = [field.attname for field in self.fields]
        self.columns = [f'{table_alias}."{field.column}"' for field in self.fields]
        self._plans: dict[str, list[tuple[int, list[Any], Any]]] = {}

    def instance(self, values: Sequence[Any], db: BaseDatabaseWrapper) -> Any:
        plan = self._plan(db)
        if not plan:  # PostgreSQL's driver hands out every column as the model holds it
            return self.model.from_db(db.alias, self.attnames, values)
        converted = list(values)
        for index, converters, column in plan:
            for convert in converters:
                converted[index] = convert(converted[index], column, db)
        return self.model.from_db(db.alias, self.attnames, converted)

    def _plan(self, db: BaseDatabaseWrapper) -> list[tuple[int, list[Any], Any]]:
        plan = self._plans.get(db.vendor)
        if plan is None:
            plan = []
            for index, field in enumerate(self.fields):
                column = field.get_col(self.model._meta.db_table)
                converters = db.ops.get_db_converters(column)
                converters += column.get_db_converters(db)
                if converters:
                    plan.append((index, converters, column))
            self._plans[db.vendor] = plan
        return plan


@functools.cache
def _token_query(along: str | None) -> tuple[str, _RowReader, _RowReader]:
    user_model = get_user_model()
    tokens, users = _RowReader(ApiToken, "t"), _RowReader(user_model, "u")
    columns = tokens.columns + users.columns + ([f"({along})"] if along else [])
    sql = (
        f"SELECT {', '.join(columns)} "
        f'FROM "{ApiToken._meta.db_table}" t JOIN "{user_model._meta.db_table}" u '
        f'ON u."{user_model._meta.pk.column}" = t."{ApiToken._meta.get_field("user").column}" '
        "WHERE t.digest = %s"
    )
    return sql, tokens, users


def _token_with_user(digest: str, along: Along | None) -> tuple[ApiToken, Any] | None:
    # Every API request asks this. Written out and prepared, the query takes a fifth of the time
    # the ORM took to build and run it (select_related, the model's ordering) for the same two
    # instances. What is asked along comes first: its parameters precede the digest.
    sql, tokens, users = _token_query(along[0] if along else None)
    row = hot_read_one(sql, [*(along[1] if along else ()), digest])
    if row is None:
        return None
    db = connections[DEFAULT_DB_ALIAS]
    split = len(tokens.fields)
    token: ApiToken = tokens.instance(row[:split], db)
    token.user = users.instance(row[split : split + len(users.fields)], db)
    return token, row[-1] if along else None


def token_of(*, user: AbstractBaseUser, token_id: uuid.UUID) -> ApiToken:
    """One of the user's tokens; anyone else's is not found."""
    token = ApiToken.objects.select_related("user").filter(pk=token_id, user_id=user.pk).first()
    if token is None:
        raise NotFound("token.not_found", "You have no such token.")
    return token


def token_revoke(token: ApiToken) -> ApiToken:
    """Revoke the token from now on (a token revoked already stays as it was)."""
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        ApiToken.objects.filter(pk=token.pk, revoked_at=None).update(revoked_at=token.revoked_at)
    return token


def token_rotate(token: ApiToken, *, expires_in_days: int | None = None) -> IssuedToken:
    """Replace a live token by a new one with the same name and rights and a fresh lifetime;
    the old one is revoked in the same transaction."""
    if token_state(token) is not TokenState.ACTIVE:
        raise StateConflict(
            "token.not_active",
            "Only a live token can be rotated: this one no longer works. Make a new one.",
        )
    with transaction.atomic():
        token_revoke(token)
        return token_issue(
            user=token.user,
            name=token.name,
            read_only=token.read_only,
            expires_in_days=expires_in_days,
        )


def tokens_revoke_all(*, user: AbstractBaseUser) -> int:
    """Revoke every token of the user that is not revoked yet; how many were."""
    return ApiToken.objects.filter(user_id=user.pk, revoked_at=None).update(
        revoked_at=timezone.now()
    )
