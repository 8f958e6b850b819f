from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "campaigns"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Importing the command modules registers their commands (and the event types).
        from campaigns import (  # noqa: F401
            branches,
            calendar,
            dice_epochs,
            dice_tray,
            events,
            invitation_links,
            members,
            projections,
            secrets,
            services,
        )
        from eventlog import commands

        commands.use_server_dice(services.server_dice, epoch_of=dice_epochs.current_dice_epoch)
