from django.apps import AppConfig


class EventLogConfig(AppConfig):
    name = "eventlog"
    verbose_name = "Event log"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from eventlog import events, signals  # noqa: F401
