"""Which ruleset packages exist, by slug and version.

A game records the VERSION of its ruleset when it is created. When a ruleset
changes incompatibly, its old code is kept importable (for example as
``games/rules/brilliant/v1/``) and registered here under its version, so old
games replay with the rules they were played under.
"""

from __future__ import annotations

import importlib

from .base import Ruleset

# slug -> {version: module path}. The highest version is used for new games.
_RULESETS: dict[str, dict[int, str]] = {
    "brilliant": {1: "games.rules.brilliant"},
    "brikks": {1: "games.rules.brikks"},
    "diamants": {1: "games.rules.diamants"},
    "brillance": {1: "games.rules.brillance"},
}


class UnknownRuleset(LookupError):
    pass


def slugs() -> list[str]:
    return [slug for slug in _RULESETS if _available(slug)]


def get(slug: str, version: int | None = None) -> Ruleset:
    versions = _RULESETS.get(slug)
    if not versions:
        raise UnknownRuleset(slug)
    chosen = max(versions) if version is None else version
    if chosen not in versions:
        raise UnknownRuleset(f"{slug} v{version}")
    module = importlib.import_module(versions[chosen])
    return module


def _available(slug: str) -> bool:
    try:
        get(slug)
    except ImportError:
        return False
    return True
