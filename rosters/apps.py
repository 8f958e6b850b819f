from django.apps import AppConfig


class RostersConfig(AppConfig):
    name = "rosters"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        import rosters.review  # noqa: F401
        from rosters import calendar_steps, events, projections, replacements  # noqa: F401
