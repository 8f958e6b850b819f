"""Errors a command can end in. Each has a stable code, a message for people, and a field."""

from __future__ import annotations

from typing import Any

from django.db import OperationalError
from pydantic import ValidationError

# PostgreSQL's codes for a statement cancelled by lock_timeout and by statement_timeout.
LOCK_NOT_AVAILABLE = "55P03"
QUERY_CANCELED = "57014"


class CommandError(Exception):
    """A command was refused: nothing was appended.

    ``code`` is stable and machine-readable (``casevac.over_capacity``); ``message`` is for a
    person; ``field`` names the offending input where there is one.
    """

    status = 400

    def __init__(self, code: str, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field

    def as_dict(self) -> dict[str, Any]:
        """The API's error shape: the first problem, and ``problems`` listing every one."""
        return error_body(self.code, self.message, self.field)


class ConcurrencyConflict(CommandError):
    """The stream moved on since the caller read it."""

    status = 409


class StateConflict(CommandError):
    """The command does not fit the current state (acting in an ended battle, say)."""

    status = 409


class PermissionDenied(CommandError):
    status = 403


class NotFound(CommandError):
    status = 404


class RuleViolation(CommandError):
    """The rules refuse the command (loading more wounded than the vehicle can carry, say)."""

    status = 422


class InvalidInput(CommandError):
    """Parameters that do not parse. ``problems`` lists every one; the first is the error."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        field: str | None = None,
        problems: list[dict[str, str | None]] | None = None,
    ) -> None:
        super().__init__(code, message, field=field)
        self.problems = problems or [{"code": code, "message": message, "field": field}]

    @classmethod
    def from_validation(cls, exc: ValidationError, *, code: str) -> InvalidInput:
        problems: list[dict[str, str | None]] = []
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"]) or None
            message = f"{where}: {error['msg']}" if where else error["msg"]
            problems.append({"code": code, "message": message, "field": where})
        first = problems[0]
        return cls(code, str(first["message"]), field=first["field"], problems=problems)

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "problems": self.problems}


def error_body(code: str, message: str, field: str | None = None) -> dict[str, Any]:
    """The error shape for a single problem."""
    return {
        "code": code,
        "message": message,
        "field": field,
        "problems": [{"code": code, "message": message, "field": field}],
    }


def database_busy(exc: BaseException) -> str | None:
    """Why the database gave up on a statement, when it gave up because it was busy:
    ``"lock_timeout"`` (another transaction held a lock longer than ``lock_timeout``, or SQLite's
    busy timeout ran out) or ``"statement_timeout"``; None for any other error. Such an error is
    worth retrying later: the request was refused, not wrong."""
    if not isinstance(exc, OperationalError):
        return None
    sqlstate = getattr(exc.__cause__, "sqlstate", None)
    if sqlstate == LOCK_NOT_AVAILABLE:
        return "lock_timeout"
    if sqlstate == QUERY_CANCELED:
        return "statement_timeout"
    if str(exc) == "database is locked":  # SQLite's busy timeout
        return "lock_timeout"
    return None
