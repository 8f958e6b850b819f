from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "campaigns"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from campaigns import events, projections, services  # noqa: F401
        from eventlog import commands

        commands.use_server_dice(services.server_dice)
