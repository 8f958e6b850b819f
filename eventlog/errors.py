"""Errors a command can end in. Each has a stable code, a message for people, and a field."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError


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
        return {"code": self.code, "message": self.message, "field": self.field}


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
