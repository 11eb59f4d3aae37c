from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from accounts.models import ApiToken
from accounts.services import token_issue, token_revoke, user_register
from config.schema import error_response


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


class RegisterView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "auth"

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
    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "auth"

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
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="auth_logout", request=None, responses={204: None}, tags=["accounts"]
    )
    def post(self, request: Request) -> Response:
        token = request.auth
        assert isinstance(token, ApiToken)  # IsAuthenticated + our only authentication class
        token_revoke(token=token)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="me_retrieve", responses=UserSerializer, tags=["accounts"])
    def get(self, request: Request) -> Response:
        return Response(UserSerializer(request.user).data)


def _valid(serializer_class: type[serializers.Serializer], request: Request) -> dict:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
