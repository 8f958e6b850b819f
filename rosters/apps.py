from django.apps import AppConfig


class RostersConfig(AppConfig):
    name = "rosters"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The commands register themselves when imported, so a worker can run their jobs.
        from campaigns.visibility import use_subject_resolver
        from rosters import (  # noqa: F401
            adjustments,
            after_action,
            after_action_fad,
            calendar_steps,
            events,
            fad_in_battle,
            fitness,
            force_import,
            in_battle,
            moves,
            projections,
            regroup,
            regroups_settled,
            replacements,
            visibility,
        )

        use_subject_resolver(visibility.forces_of)
