from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "games.webhooks"
    label = "webhooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import notifications

        from . import receivers

        # Strong reference: the receiver is a module-level function, kept for
        # the life of the process.
        notifications.users_notified.connect(
            receivers.deliveries_for_notifications, dispatch_uid="webhooks.deliveries"
        )
