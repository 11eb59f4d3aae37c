"""The domain's error hierarchy. Services raise these; one handler in
``config/errors.py`` renders them. Each has a stable machine-readable ``code``
and an HTTP status; codes are part of the public API (docs/api.md)."""

from __future__ import annotations

from typing import Any


class ApplicationError(Exception):
    code = "application_error"
    status = 400

    def __init__(self, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}


class ValidationFailed(ApplicationError):
    code = "validation_error"
    status = 400


class NotFound(ApplicationError):
    code = "not_found"
    status = 404


class PermissionDenied(ApplicationError):
    code = "permission_denied"
    status = 403


class NotAPlayer(ApplicationError):
    code = "not_a_player"
    status = 403


class Conflict(ApplicationError):
    status = 409
    code = "conflict"


class StaleSeq(Conflict):
    code = "stale_seq"


class GameNotOpen(Conflict):
    code = "game_not_open"


class GameNotActive(Conflict):
    code = "game_not_active"


class GameFinished(Conflict):
    code = "game_finished"


class NotYourTurn(Conflict):
    code = "not_your_turn"


class IllegalActionError(ApplicationError):
    """A ruleset refused the action; ``reason`` is the ruleset's own code."""

    code = "illegal_action"
    status = 422

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message, details={"reason": reason})
        self.reason = reason
