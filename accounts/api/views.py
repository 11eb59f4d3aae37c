from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors
from accounts.models import ApiToken, TokenKind, User
from accounts.permissions import HasTokenScope
from accounts.scopes import GRANTABLE_SCOPES, SESSION_SCOPES, TOKENS_MANAGE
from accounts.services import (
    personal_token_create,
    token_issue,
    token_revoke,
    token_revoke_owned,
    user_register,
)
from accounts.throttling import (
    AnonymousAddressThrottle,
    LoginAddressThrottle,
    LoginUsernameThrottle,
    RegisterAddressThrottle,
    TokenThrottle,
)
from config.schema import error_response

# Every view keeps the default limits and adds its own.
DEFAULT_THROTTLES = [TokenThrottle, AnonymousAddressThrottle]


class CredentialsSerializer(serializers.Serializer):
    username = serializers.RegexField(r"^[A-Za-z0-9_.-]{3,30}$", max_length=30)
    password = serializers.CharField(max_length=128, trim_whitespace=False)


class UserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    date_joined = serializers.DateTimeField()


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()
    token_type = serializers.CharField()
    user = UserSerializer()


@extend_schema_serializer(component_name="TokenInfo")  # "Token" is log-in's answer
class TokenOutput(serializers.Serializer):
    """A token as its owner sees it; the key itself is never shown again."""

    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=TokenKind.choices)
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="The key's first characters, to tell tokens apart.")
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=list(SESSION_SCOPES)), source="effective_scopes"
    )
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(
        allow_null=True, help_text="Updated at most every five minutes."
    )
    expires_at = serializers.DateTimeField(allow_null=True)


@extend_schema_serializer(component_name="TokenCreated")
class TokenCreatedOutput(TokenOutput):
    token = serializers.CharField(help_text="The key: shown once, only in this answer.")
    token_type = serializers.CharField()


class TokenCreateInput(serializers.Serializer):
    name = serializers.CharField(max_length=100, help_text="What the token is for.")
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=list(GRANTABLE_SCOPES)),
        min_length=1,
        max_length=len(GRANTABLE_SCOPES),
    )
    expires_at = serializers.DateTimeField(
        required=False, allow_null=True, default=None, help_text="Optional; in the future."
    )


class TokenListQuery(serializers.Serializer):
    kind = serializers.ChoiceField(choices=TokenKind.choices, required=False)


class RegisterView(APIView):
    permission_classes = [AllowAny, HasTokenScope]
    required_scope = None
    throttle_classes = [*DEFAULT_THROTTLES, RegisterAddressThrottle]

    @extend_schema(
        operation_id="auth_register",
        request=CredentialsSerializer,
        responses={201: UserSerializer, 409: error_response("username_taken.")},
        tags=["accounts"],
    )
    def post(self, request: Request) -> Response:
        data = _valid(CredentialsSerializer, request)
        user = user_register(username=data["username"], password=data["password"])
        return Response(UserSerializer(user).data, status=status.HTTP_201_CREATED)


class LoginView(APIView):
    permission_classes = [AllowAny, HasTokenScope]
    required_scope = None  # no token is read here anyway
    authentication_classes: list = []
    throttle_classes = [*DEFAULT_THROTTLES, LoginAddressThrottle, LoginUsernameThrottle]
    # Its answer holds a new token, which must not be kept in clear for
    # replays (tokens are stored only as hashes); a retried log-in simply
    # issues another token.
    idempotency_exempt = True

    @extend_schema(
        operation_id="auth_login",
        request=CredentialsSerializer,
        responses={
            201: TokenSerializer,
            401: error_response("invalid_credentials: wrong username or password."),
        },
        tags=["accounts"],
    )
    def post(self, request: Request) -> Response:
        issued = token_issue(**_valid(CredentialsSerializer, request))
        body = {
            "token": issued.key,
            "token_type": "Bearer",
            "user": UserSerializer(issued.token.user).data,
        }
        return Response(body, status=status.HTTP_201_CREATED)


class LogoutView(APIView):
    permission_classes = [IsAuthenticated, HasTokenScope]
    required_scope = None  # any token may revoke itself

    @extend_schema(
        operation_id="auth_logout", request=None, responses={204: None}, tags=["accounts"]
    )
    def post(self, request: Request) -> Response:
        token = request.auth
        assert isinstance(token, ApiToken)  # IsAuthenticated + our only authentication class
        token_revoke(token=token)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(APIView):
    permission_classes = [IsAuthenticated, HasTokenScope]
    required_scope = None  # any token may ask whose it is

    @extend_schema(operation_id="me_retrieve", responses=UserSerializer, tags=["accounts"])
    def get(self, request: Request) -> Response:
        return Response(UserSerializer(request.user).data)


class TokenListView(APIView):
    """Your tokens. Needs a login session token: personal tokens cannot
    manage tokens, so a leaked one cannot mint a stronger one."""

    permission_classes = [IsAuthenticated, HasTokenScope]
    required_scope = TOKENS_MANAGE
    # The answer to a POST holds the new token's key, which is stored only as
    # a hash: it must not be kept in clear for replays (as for log-in).
    idempotency_exempt = True

    @extend_schema(
        parameters=[TokenListQuery],
        responses={
            200: TokenOutput(many=True),
            400: error_response("validation_error: unknown kind."),
        },
        tags=["tokens"],
    )
    def get(self, request: Request) -> Response:
        query = _valid(TokenListQuery, request, request.query_params)
        tokens = selectors.token_list(user=_owner(request), kind=query.get("kind"))
        return Response(TokenOutput(tokens, many=True).data)

    @extend_schema(
        request=TokenCreateInput,
        responses={
            201: TokenCreatedOutput,
            400: error_response(
                "validation_error: unknown scope, empty scopes or a past expires_at."
            ),
        },
        tags=["tokens"],
    )
    def post(self, request: Request) -> Response:
        issued = personal_token_create(user=_owner(request), **_valid(TokenCreateInput, request))
        body = {**TokenOutput(issued.token).data, "token": issued.key, "token_type": "Bearer"}
        return Response(body, status=status.HTTP_201_CREATED)


class TokenDetailView(APIView):
    permission_classes = [IsAuthenticated, HasTokenScope]
    required_scope = TOKENS_MANAGE

    @extend_schema(
        parameters=[OpenApiParameter("token_id", int, OpenApiParameter.PATH)],
        responses={204: None, 404: error_response("not_found: no such token of yours.")},
        tags=["tokens"],
    )
    def delete(self, request: Request, token_id: int) -> Response:
        token_revoke_owned(user=_owner(request), token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _owner(request: Request) -> User:
    assert isinstance(request.user, User)  # IsAuthenticated
    return request.user


def _valid(
    serializer_class: type[serializers.Serializer], request: Request, data: object = None
) -> dict:
    serializer = serializer_class(data=request.data if data is None else data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
