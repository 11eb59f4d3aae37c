import hashlib
import secrets

TOKEN_BYTES = 32
PREFIX_LENGTH = 8


def new_token_key() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()
