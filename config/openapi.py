"""How the OpenAPI schema describes what every operation can answer besides success.

Every error the API gives has one shape (``ErrorSerializer``), and which errors an operation can
give follows from what it is, the same way everywhere: anyone may be refused authentication or
permission, or throttled, or find the database busy; an operation with a path parameter can miss
its subject; one that reads input can find it invalid; a write can conflict with the campaign's
state or be refused by the rules. Views document the errors particular to them with
``extend_schema`` (an archive's 415, say); what they declare is kept.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework.permissions import AllowAny

from eventlog.api.serializers import DicePromptSerializer, ErrorSerializer

WRITES = {"POST", "PUT", "PATCH", "DELETE"}

_WHY = {
    "400": "The input is not valid: every problem is listed in `problems`, each with its field.",
    "401": "No credentials where they are needed, or credentials that are not valid (a revoked "
    "or expired API token, say).",
    "403": "The caller may not do this (not an umpire of the campaign, a read-only token...).",
    "404": "No such thing, or one the caller may not see.",
    "409": "The command does not fit the campaign's state now (a battle already ended, a stream "
    "that moved on since it was read).",
    "413": "The request body is larger than the service accepts.",
    "415": "The body is not JSON (`Content-Type: application/json`).",
    "422": "The rules refuse the command; `code` and `message` say which rule.",
    "429": "Too many requests; the `Retry-After` header says when to try again.",
    "503": "The database was busy and nothing was changed; try again after `Retry-After`.",
}


class MusterAutoSchema(AutoSchema):
    """drf-spectacular's schema, with every error an operation can answer documented."""

    def _is_list_view(self, serializer: Any = None) -> bool:
        # A page of a list (eventlog.api.pagination) is a list to a client: its operation is
        # named ``..._list``, not ``..._retrieve``.
        if (
            serializer is None
            and self.method == "GET"
            and getattr(self._success_serializer(), "is_page", False)
        ):
            return True
        return super()._is_list_view(serializer)

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        for code in self._error_codes():
            if code not in responses:
                responses[code] = self._get_response_for_code(
                    OpenApiResponse(ErrorSerializer, description=_WHY[code]),
                    code,
                    direction=direction,
                )
        return dict(sorted(responses.items()))

    def _error_codes(self) -> list[str]:
        open_to_all = any(
            permission is AllowAny or isinstance(permission, AllowAny)
            for permission in getattr(self.view, "permission_classes", ())
        )
        # Credentials that are sent are checked even where none are needed: a revoked token is a
        # 401 on an open operation too.
        codes = ["401", "429", "503"] if open_to_all else ["401", "403", "429", "503"]
        takes_input = self.method in WRITES or any(
            parameter["in"] in ("query", "header") for parameter in self._get_parameters()
        )
        if takes_input:
            codes.append("400")
        if "{" in self.path:
            codes.append("404")
        if self.method in WRITES:
            codes += ["409", "413", "415", "422"]
        elif self._is_dice_prompt():
            # A prompt follows the command's decision, so it meets the same refusals.
            codes += ["409", "422"]
        return codes

    def _is_dice_prompt(self) -> bool:
        found = self._success_serializer()
        found = found if isinstance(found, type) else type(found)
        return issubclass(found, DicePromptSerializer)

    def _success_serializer(self) -> Any:
        """What the operation declares it answers with 200 (a class or an instance)."""
        found = self.get_response_serializers()
        return found.get(200, found.get("200")) if isinstance(found, dict) else found
