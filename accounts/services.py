"""Writes for accounts: registration and tokens."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.errors import ApplicationError, NotFound, ValidationFailed

from .models import ApiToken, TokenKind, User
from .scopes import GRANTABLE_SCOPES, SESSION_SCOPES
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
    """Log in: a session token, holding every scope."""
    user = authenticate(username=username, password=password)
    if user is None or not user.is_active:
        raise InvalidCredentials("Wrong username or password.")
    return _token_create(user=user, kind=TokenKind.SESSION, scopes=list(SESSION_SCOPES))


def personal_token_create(
    *, user: User, name: str, scopes: list[str], expires_at: datetime | None = None
) -> IssuedToken:
    """A personal access token with the given scopes (grantable ones only)."""
    unknown = sorted(set(scopes) - set(GRANTABLE_SCOPES))
    if unknown or not scopes:
        raise ValidationFailed(
            "Unknown or missing scopes.",
            details={"fields": {"scopes": [f"Choose among {', '.join(GRANTABLE_SCOPES)}."]}},
        )
    if expires_at is not None and expires_at <= timezone.now():
        raise ValidationFailed(
            "expires_at is in the past.",
            details={"fields": {"expires_at": ["Must be in the future."]}},
        )
    ordered = [scope for scope in GRANTABLE_SCOPES if scope in scopes]
    return _token_create(
        user=user, kind=TokenKind.PERSONAL, scopes=ordered, name=name, expires_at=expires_at
    )


def _token_create(
    *,
    user: User,
    kind: str,
    scopes: list[str],
    name: str = "",
    expires_at: datetime | None = None,
) -> IssuedToken:
    key = new_token_key()
    token = ApiToken.objects.create(
        user=user,
        key_hash=hash_token_key(key),
        prefix=key[:PREFIX_LENGTH],
        kind=kind,
        name=name,
        scopes=scopes,
        expires_at=expires_at,
    )
    return IssuedToken(key=key, token=token)


def token_revoke(*, token: ApiToken) -> None:
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())


def token_revoke_owned(*, user: User, token_id: int) -> None:
    """Revoke one of ``user``'s tokens; someone else's, or one already
    revoked, is not found (404), so token ids reveal nothing."""
    revoked = ApiToken.objects.filter(pk=token_id, user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    if not revoked:
        raise NotFound(f"You have no active token {token_id}.")
