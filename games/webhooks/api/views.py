"""Webhooks API: owners manage their webhooks and read their deliveries.
Thin views: parse, call one service or selector, render."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User

from .. import selectors, services
from . import serializers as s

SCOPE = "webhooks:manage"
TAGS = ["webhooks"]


def _error(description: str) -> OpenApiResponse:
    return OpenApiResponse(s.ErrorOutput, description=description)


# 401 (no or bad token) and 403 (`insufficient_scope`) are added to every
# operation by the project's schema class, with the other common errors.
AUTH_ERRORS: dict[int, OpenApiResponse] = {}
NOT_FOUND = {404: _error("No such webhook (or delivery) of yours (`not_found`).")}
INVALID = {400: _error("Invalid input (`validation_error`, `malformed_request`).")}
INACTIVE = {409: _error("The webhook is inactive (`webhook_inactive`).")}


def _owner(request: Request) -> User:
    if not isinstance(request.user, User):
        raise NotAuthenticated()
    return request.user


def _valid(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class WebhookView(APIView):
    required_scope = SCOPE

    def get_permissions(self) -> list[Any]:
        # Logged-in users only, on top of the project's default checks (the
        # token scope among them), which are kept rather than replaced.
        return [IsAuthenticated(), *super().get_permissions()]


class DeliveryPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class WebhookListView(WebhookView):
    @extend_schema(responses={200: s.WebhookOutput(many=True), **AUTH_ERRORS}, tags=TAGS)
    def get(self, request: Request) -> Response:
        hooks = selectors.webhook_list(owner=_owner(request))
        return Response(s.WebhookOutput(hooks, many=True).data)

    @extend_schema(
        request=s.WebhookCreateInput,
        responses={
            201: s.WebhookWithSecretOutput,
            **INVALID,
            **AUTH_ERRORS,
            409: _error("You have as many webhooks as allowed (`webhook_limit_reached`)."),
        },
        tags=TAGS,
    )
    def post(self, request: Request) -> Response:
        hook = services.webhook_create(
            owner=_owner(request), **_valid(s.WebhookCreateInput, request.data)
        )
        return Response(s.WebhookWithSecretOutput(hook).data, status=status.HTTP_201_CREATED)


class WebhookDetailView(WebhookView):
    @extend_schema(responses={200: s.WebhookOutput, **AUTH_ERRORS, **NOT_FOUND}, tags=TAGS)
    def get(self, request: Request, webhook_id: int) -> Response:
        hook = selectors.webhook_get(owner=_owner(request), webhook_id=webhook_id)
        return Response(s.WebhookOutput(hook).data)

    @extend_schema(
        request=s.WebhookUpdateInput,
        responses={200: s.WebhookOutput, **INVALID, **AUTH_ERRORS, **NOT_FOUND},
        tags=TAGS,
    )
    def patch(self, request: Request, webhook_id: int) -> Response:
        hook = selectors.webhook_get(owner=_owner(request), webhook_id=webhook_id)
        changes = _valid(s.WebhookUpdateInput, request.data)
        return Response(s.WebhookOutput(services.webhook_update(webhook=hook, **changes)).data)

    @extend_schema(
        responses={
            204: OpenApiResponse(description="Deleted, with its deliveries."),
            **AUTH_ERRORS,
            **NOT_FOUND,
        },
        tags=TAGS,
    )
    def delete(self, request: Request, webhook_id: int) -> Response:
        hook = selectors.webhook_get(owner=_owner(request), webhook_id=webhook_id)
        services.webhook_delete(webhook=hook)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookRotateSecretView(WebhookView):
    @extend_schema(
        request=None,
        responses={200: s.WebhookWithSecretOutput, **AUTH_ERRORS, **NOT_FOUND},
        tags=TAGS,
        description="A new signing secret, in effect at once; the old one signs nothing more.",
    )
    def post(self, request: Request, webhook_id: int) -> Response:
        hook = selectors.webhook_get(owner=_owner(request), webhook_id=webhook_id)
        hook = services.webhook_rotate_secret(webhook=hook)
        return Response(s.WebhookWithSecretOutput(hook).data)


class WebhookPingView(WebhookView):
    @extend_schema(
        request=None,
        responses={202: s.DeliveryOutput, **AUTH_ERRORS, **NOT_FOUND, **INACTIVE},
        tags=TAGS,
        description="Queue a test delivery of kind `ping`; follow it in the deliveries list.",
    )
    def post(self, request: Request, webhook_id: int) -> Response:
        hook = selectors.webhook_get(owner=_owner(request), webhook_id=webhook_id)
        delivery = services.delivery_ping(webhook=hook)
        return Response(s.DeliveryOutput(delivery).data, status=status.HTTP_202_ACCEPTED)


class DeliveryListView(WebhookView):
    @extend_schema(
        parameters=[s.DeliveryListQuery],
        responses={200: s.DeliveryPageOutput, **INVALID, **AUTH_ERRORS, **NOT_FOUND},
        tags=TAGS,
        description="This webhook's deliveries, newest first, a page at a time.",
    )
    def get(self, request: Request, webhook_id: int) -> Response:
        hook = selectors.webhook_get(owner=_owner(request), webhook_id=webhook_id)
        query = _valid(s.DeliveryListQuery, request.query_params)
        deliveries = selectors.delivery_list(webhook=hook, status=query.get("status"))
        paginator = DeliveryPagination()
        page = paginator.paginate_queryset(deliveries, request, view=self)
        return paginator.get_paginated_response(s.DeliveryOutput(page or [], many=True).data)


class DeliveryRedeliverView(WebhookView):
    @extend_schema(
        request=None,
        responses={202: s.DeliveryOutput, **AUTH_ERRORS, **NOT_FOUND, **INACTIVE},
        tags=TAGS,
        description=(
            "Send the delivery again now (same id, same body), with a fresh retry budget."
        ),
    )
    def post(self, request: Request, webhook_id: int, delivery_id: uuid.UUID) -> Response:
        hook = selectors.webhook_get(owner=_owner(request), webhook_id=webhook_id)
        delivery = selectors.delivery_get(webhook=hook, delivery_id=delivery_id)
        delivery = services.delivery_redeliver(delivery=delivery)
        return Response(s.DeliveryOutput(delivery).data, status=status.HTTP_202_ACCEPTED)
