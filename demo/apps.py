from django.apps import AppConfig


class DemoConfig(AppConfig):
    """The demo campaign (``manage.py demo``): it plays every app's commands, so it sits above
    them all and no domain app depends on it."""

    name = "demo"
    default_auto_field = "django.db.models.BigAutoField"
