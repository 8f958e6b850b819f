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
            fad,
            fire,
            fire_support,
            medical,
            mines,
            morale,
            projections,
            reports,
            review,
            snipers,
            suppression,
            vehicle_fire,
        )
