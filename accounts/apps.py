from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the token's description with the OpenAPI schema generator.
        from accounts import schema  # noqa: F401
