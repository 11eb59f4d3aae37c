from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import live, notifications

        # Forward committed changes to Redis for the live streams of every
        # web process (no-ops without REDIS_URL).
        notifications.events_committed.connect(live.publish_game, dispatch_uid="live.game")
        notifications.users_notified.connect(live.publish_user, dispatch_uid="live.user")
