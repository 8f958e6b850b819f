from django.apps import AppConfig


class BattlesConfig(AppConfig):
    name = "battles"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        import battles.after_action  # noqa: F401
        from battles import (  # noqa: F401
            actions,
            after_action_fad,
            casualties,
            events,
            medical,
            morale,
            projections,
        )
