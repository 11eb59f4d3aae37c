from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models

from .scopes import GRANTABLE_SCOPES, SESSION_SCOPES


class User(AbstractUser):
    """Our own user model from day one, so fields can be added without a
    painful swap later."""


class TokenKind(models.TextChoices):
    SESSION = "session", "login session"
    PERSONAL = "personal", "personal access token"


class ApiToken(models.Model):
    """A bearer token. Only its SHA-256 is stored: a leaked database does not
    leak usable tokens. ``prefix`` (the first characters) lets a user tell
    their tokens apart.

    A login session token (``POST /auth/login``) holds every scope, including
    ``tokens:manage``; a personal access token holds the scopes its owner
    chose when creating it (``POST /tokens``) and may expire."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    key_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=12)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    kind = models.CharField(max_length=16, choices=TokenKind.choices, default=TokenKind.SESSION)
    name = models.CharField(max_length=100, blank=True)
    # Only read for personal tokens; a session token holds every scope, even
    # scopes added after it was issued.
    scopes = models.JSONField(default=list, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "revoked_at"], name="apitoken_user_active")]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"

    @property
    def effective_scopes(self) -> list[str]:
        if self.kind == TokenKind.SESSION:
            return list(SESSION_SCOPES)
        return [scope for scope in GRANTABLE_SCOPES if scope in self.scopes]

    def has_scope(self, scope: str) -> bool:
        return scope in self.effective_scopes
