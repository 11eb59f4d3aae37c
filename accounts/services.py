"""Writes for accounts: registration and tokens."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.errors import ApplicationError, ValidationFailed

from .models import ApiToken, User
from .tokens import PREFIX_LENGTH, hash_token_key, new_token_key


class InvalidCredentials(ApplicationError):
    code = "invalid_credentials"
    status = 401


class UsernameTaken(ApplicationError):
    code = "username_taken"
    status = 409


@dataclass(frozen=True)
class IssuedToken:
    """The only moment the plain key exists: it is returned once, then only its hash is kept."""

    key: str
    token: ApiToken


def user_register(*, username: str, password: str) -> User:
    candidate = User(username=username)
    try:
        validate_password(password, user=candidate)
    except DjangoValidationError as exc:
        raise ValidationFailed(
            "Password rejected.", details={"fields": {"password": exc.messages}}
        ) from exc
    if User.objects.filter(username__iexact=username).exists():
        raise UsernameTaken(f"The username {username!r} is taken.")
    try:
        with transaction.atomic():
            return User.objects.create_user(username=username, password=password)
    except IntegrityError as exc:  # lost a race with a twin registration
        raise UsernameTaken(f"The username {username!r} is taken.") from exc


def token_issue(*, username: str, password: str) -> IssuedToken:
    user = authenticate(username=username, password=password)
    if user is None or not user.is_active:
        raise InvalidCredentials("Wrong username or password.")
    key = new_token_key()
    token = ApiToken.objects.create(
        user=user, key_hash=hash_token_key(key), prefix=key[:PREFIX_LENGTH]
    )
    return IssuedToken(key=key, token=token)


def token_revoke(*, token: ApiToken) -> None:
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
