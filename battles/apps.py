from django.apps import AppConfig


class BattlesConfig(AppConfig):
    name = "battles"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from battles import (  # noqa: F401
            actions,
            after_action,
            casualties,
            close_assault,
            events,
            fire,
            fire_support,
            medical,
            morale,
            projections,
            review,
            suppression,
            vehicle_fire,
        )
