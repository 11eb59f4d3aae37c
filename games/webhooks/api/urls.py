from django.urls import path

from . import views

urlpatterns = [
    path("webhooks", views.WebhookListView.as_view(), name="webhook-list"),
    path("webhooks/<int:webhook_id>", views.WebhookDetailView.as_view(), name="webhook-detail"),
    path(
        "webhooks/<int:webhook_id>/rotate-secret",
        views.WebhookRotateSecretView.as_view(),
        name="webhook-rotate-secret",
    ),
    path("webhooks/<int:webhook_id>/ping", views.WebhookPingView.as_view(), name="webhook-ping"),
    path(
        "webhooks/<int:webhook_id>/deliveries",
        views.DeliveryListView.as_view(),
        name="webhook-deliveries",
    ),
    path(
        "webhooks/<int:webhook_id>/deliveries/<uuid:delivery_id>/redeliver",
        views.DeliveryRedeliverView.as_view(),
        name="webhook-redeliver",
    ),
]
