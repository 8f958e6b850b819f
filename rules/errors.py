"""The one base of every refusal the rules make.

A rule that cannot be applied to its input raises a :class:`RuleError` (or a subclass): a stable
machine-readable ``code`` (``casevac.over_capacity``), a ``message`` a person understands, and the
``field`` of the input it concerns when there is one. The service turns it into its error response;
nothing needs to catch ``ValueError`` to find the rules' refusals.
"""

from __future__ import annotations


class RuleError(ValueError):
    """The rules refuse their input."""

    def __init__(self, code: str, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
