from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from config.errors import json_400, json_403, json_404, json_500

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
    path("api/v1/", include("accounts.api.urls")),
    path("api/v1/", include("games.api.urls")),
    path("api/v1/", include("games.webhooks.api.urls")),
]

handler400 = json_400
handler403 = json_403
handler404 = json_404
handler500 = json_500
