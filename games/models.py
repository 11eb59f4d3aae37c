"""Games, their seats and their event log.

The ``Event`` table is the source of truth: append-only, one row per event,
``(game, seq)`` unique, each row chained to the previous one by a SHA-256
hash. ``Game.state`` is a projection (the ruleset's state after the last
event) kept in the same transaction as the append, so reading a game never
replays its history.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class GameStatus(models.TextChoices):
    OPEN = "open", "Open for players"
    ACTIVE = "active", "In play"
    FINISHED = "finished", "Finished"
    ABORTED = "aborted", "Aborted before the start"


class Game(models.Model):
    ruleset = models.CharField(max_length=32, db_index=True)
    ruleset_version = models.PositiveIntegerField()
    options = models.JSONField(default=dict)
    num_seats = models.PositiveSmallIntegerField()
    turn_timeout = models.PositiveIntegerField(help_text="Seconds each pending seat has to act.")
    status = models.CharField(
        max_length=16, choices=GameStatus.choices, default=GameStatus.OPEN, db_index=True
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="games_created"
    )
    # Spectators: anyone may read a public game; a private one only its players.
    public = models.BooleanField(default=True)

    # Provably fair dice (games/randomness.py): the secret seed (revealed only
    # once the game is finished), its public SHA-256 commitment, and the next
    # unused HMAC counter. Games created before this have no seed.
    seed = models.CharField(max_length=64, default="", blank=True)
    seed_commitment = models.CharField(max_length=64, default="", blank=True)
    rng_counter = models.PositiveBigIntegerField(default=0)

    # The projection: the last event's seq and hash, and the state after it.
    seq = models.PositiveIntegerField(default=0)
    last_hash = models.CharField(max_length=64, default="")
    state = models.JSONField(default=dict)
    result = models.JSONField(null=True, blank=True)
    # When set, the ruleset has an automatic step due (a dice roll): a task is
    # sent at once and the sweep runs it if that message is lost.
    system_step_due_at = models.DateTimeField(null=True, blank=True, db_index=True)

    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.ruleset} #{self.pk} ({self.status})"


class Seat(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats",
    )
    is_bot = models.BooleanField(default=False)
    resigned = models.BooleanField(default=False)
    # Board Game Arena's "zombie": after repeated timeouts the bot plays this
    # seat until its player acts again.
    zombie = models.BooleanField(default=False)
    auto_moves_in_row = models.PositiveSmallIntegerField(default=0)
    # Set while the seat must act; the sweep plays the automatic move after it.
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["index"]
        constraints = [
            models.UniqueConstraint(fields=["game", "index"], name="seat_unique_index"),
            models.UniqueConstraint(
                fields=["game", "user"],
                condition=models.Q(user__isnull=False),
                name="seat_unique_user",
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.index} of game {self.game_id}"

    @property
    def played_by_bot(self) -> bool:
        return self.is_bot or self.zombie or self.resigned


class Event(models.Model):
    """Append-only. PostgreSQL and SQLite triggers refuse UPDATE and DELETE
    (migration 0002), whatever code runs against the database."""

    # No index of its own: the unique (game, seq) index starts with game and
    # serves every lookup by game; a second one cost ~20 bytes per event and
    # one more index to update per append (docs/performance.md).
    game = models.ForeignKey(
        Game,
        on_delete=models.DO_NOTHING,
        related_name="events",
        db_constraint=True,
        db_index=False,
    )
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=64)
    actor = models.SmallIntegerField(
        null=True, blank=True, help_text="Seat, or empty for the system."
    )
    automatic = models.BooleanField(
        default=False, help_text="Made by a timeout or a bot on a player's behalf."
    )
    payload = models.JSONField(default=dict)
    # On the first event a ruleset call produced (provably fair games): what
    # called it and what it drew, {"by", "seat", "action", "draws"}. Secret
    # until the game ends; part of the hash only when present.
    cause = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField()
    hash = models.CharField(max_length=64)

    class Meta:
        ordering = ["game_id", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="event_unique_game_seq")
        ]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.type}"


class ImportedRecord(models.Model):
    """A game record uploaded to be viewed and verified. Never a live game:
    it is stored as sent, with the verification made when it arrived."""

    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="imported_records",
    )
    ruleset = models.CharField(max_length=32)
    record = models.JSONField()
    verification = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"imported {self.ruleset} record #{self.pk}"
