from django.contrib import admin

from .models import Event, Game, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "ruleset", "status", "num_seats", "seq", "created_by", "created_at")
    list_filter = ("ruleset", "status")
    inlines = [SeatInline]
    readonly_fields = ("seq", "last_hash", "state", "result", "seed_commitment", "rng_counter")
    # The dice seed stays out of the admin: it must not leak before the end.
    exclude = ("seed",)


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    """Read-only: the log is append-only (the database refuses changes anyway)."""

    list_display = ("game", "seq", "type", "actor", "automatic", "created_at")
    list_filter = ("type",)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False
