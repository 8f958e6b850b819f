from django.apps import AppConfig


class RostersConfig(AppConfig):
    name = "rosters"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from rosters import calendar_steps, events, projections  # noqa: F401
