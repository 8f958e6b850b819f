"""Password rules of our own, beside Django's (``AUTH_PASSWORD_VALIDATORS``)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

# The service's own name is the first word anyone guessing a password here would try; the demo's
# password has it too, so the demo's accounts cannot be copied into a real installation.
SERVICE_WORDS = ("muster",)


class ServiceNameValidator:
    """Refuses a password that contains the service's name."""

    def validate(self, password: str, user: Any = None) -> None:
        folded = password.casefold()
        for word in SERVICE_WORDS:
            if word in folded:
                raise ValidationError(
                    f'This password contains the word "{word}", the name of this service.',
                    code="password_service_name",
                )

    def get_help_text(self) -> str:
        return "Your password cannot contain the name of this service."
