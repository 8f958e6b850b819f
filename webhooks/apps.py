from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from eventlog import store
        from webhooks import outbox

        # Every append, whoever makes it, queues its deliveries in its own transaction.
        store.on_append(outbox.queue_deliveries)
