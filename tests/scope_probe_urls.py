"""The project's URLs plus a probe view that needs ``webhooks:manage``, so the
scope check on a view's ``required_scope`` is tested through HTTP before any
real webhook endpoint exists."""

from __future__ import annotations

from django.urls import path
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import HasTokenScope
from config.urls import urlpatterns as project_urlpatterns


class WebhooksProbeView(APIView):
    permission_classes = [IsAuthenticated, HasTokenScope]
    required_scope = "webhooks:manage"

    def get(self, request: Request) -> Response:
        return Response({"ok": True})

    def post(self, request: Request) -> Response:
        return Response({"ok": True}, status=201)


urlpatterns = [
    *project_urlpatterns,
    path("api/v1/test-probe/webhooks", WebhooksProbeView.as_view()),
]
