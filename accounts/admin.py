from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import ApiToken, User

admin.site.register(User, UserAdmin)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("prefix", "user", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("key_hash", "prefix", "created_at", "last_used_at")
    search_fields = ("user__username", "prefix")
