"""Errors a command can end in. Each has a stable code, a message for people, and a field."""

from __future__ import annotations


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

    def as_dict(self) -> dict[str, str | None]:
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
