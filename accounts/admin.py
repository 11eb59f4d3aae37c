from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import ApiToken, User

admin.site.register(User, UserAdmin)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = (
        "prefix",
        "user",
        "kind",
        "name",
        "created_at",
        "last_used_at",
        "expires_at",
        "revoked_at",
    )
    list_filter = ("kind",)
    readonly_fields = ("key_hash", "prefix", "created_at", "last_used_at")
    search_fields = ("user__username", "prefix")
