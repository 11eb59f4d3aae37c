from django.contrib import admin

from .models import Webhook, WebhookDelivery


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    list_display = ("id", "owner", "url", "active", "created_at")
    list_filter = ("active",)
    exclude = ("secret",)


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ("delivery_id", "webhook", "kind", "status", "attempts", "next_attempt_at")
    list_filter = ("status", "kind")
    readonly_fields = ("delivery_id", "payload", "created_at")
