"""Settings, read from the environment (see deploy/env.example).

With no environment at all the service runs on an embedded default: a SQLite
file and a file-system Celery broker under ``var/``. Set ``DATABASE_URL`` and
``REDIS_URL`` to use PostgreSQL and Redis.
"""

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import environ
from corsheaders.defaults import default_headers
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(environ.Env().str("FACETS_VAR_DIR", default=str(BASE_DIR / "var")))

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env.str("SECRET_KEY", default="insecure-dev-key-change-me-in-production-0123456789")
# Any host name by default, so the service answers however it is reached on a
# development machine; set ALLOWED_HOSTS in production (deploy/env.example).
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["*"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "corsheaders",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "games",
    "games.webhooks",
    "games.idempotency",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Serves the admin's and the API docs' static files under gunicorn, offline.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # ETag on every GET; a client polling with If-None-Match gets 304 and no body.
    # (Game and state reads set their own cheap ETag: games/api/conditional.py.)
    "django.middleware.http.ConditionalGetMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: it runs the view inside the transaction that stores the answer.
    "games.idempotency.middleware.IdempotencyMiddleware",
]

ROOT_URLCONF = "config.urls"
# Served under ASGI (uvicorn) so live streams wait in an event loop;
# config/wsgi.py stays for tools that want WSGI (no live streams there).
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'facets.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several processes (web, worker, beat) share the file: wait for locks
    # instead of failing, and take the write lock at BEGIN so two writers
    # never deadlock upgrading a read lock.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 30, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"}
    )
elif env.bool("FACETS_DB_POOL", default=False):
    # The web processes (``manage.py serve`` sets this): under ASGI each
    # request's sync code runs in a thread of its own, so a persistent
    # connection is never reused; a pool (psycopg_pool, per process) hands
    # connections from request to request instead of opening one each time.
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # Django requires it with a pool
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 2,
        "max_size": env.int("FACETS_DB_POOL_MAX_SIZE", default=10),
        "timeout": 10,
    }
else:
    # 0 by default: see the pool above for why persistent connections do
    # not help under ASGI. Celery workers may set CONN_MAX_AGE.
    DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=0))
DATABASES["default"]["TEST"] = {"NAME": env.str("TEST_DATABASE_NAME", default="") or None}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 8},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = env.str("STATIC_ROOT", default=str(VAR_DIR / "static"))
WHITENOISE_USE_FINDERS = True  # works before (or without) collectstatic

# Browser clients on other sites may call the API: it authenticates with
# bearer tokens, never cookies, so allowing any origin exposes nothing.
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOWED_ORIGINS = env.list("CORS_ALLOWED_ORIGINS", default=[])
CORS_ALLOW_ALL_ORIGINS = not CORS_ALLOWED_ORIGINS
CORS_ALLOW_HEADERS = (*default_headers, "idempotency-key", "if-none-match")
CORS_EXPOSE_HEADERS = ["ETag", "Idempotent-Replayed"]

# --- Rate limits (accounts/throttling.py) ---------------------------------------
# "N/second|minute|hour|day"; "off" lifts one limit, FACETS_RATE_LIMITS=off
# lifts them all (load tests). Defaults sit far above what a client playing
# games needs (benchmarks run hundreds of moves a second from one address).
RATE_LIMITS_ON = env.str("FACETS_RATE_LIMITS", default="on").lower() not in {"off", "0", "false"}


def _rate(name: str, default: str) -> str | None:
    value = env.str(name, default=default).strip()
    if not RATE_LIMITS_ON or value.lower() in {"off", "none", ""}:
        return None
    if not re.fullmatch(r"\d+/(s|sec|second|m|min|minute|h|hour|d|day)", value):
        # Fail at start-up rather than with a 500 on every request.
        raise ImproperlyConfigured(f"{name}={value!r}: expected N/second|minute|hour|day or off")
    return value


# The older single knob for log-in and registration still applies if set.
_AUTH_RATE = env.str("AUTH_THROTTLE_RATE", default="")
THROTTLE_RATES: dict[str, str | None] = {
    # every request with a token, per token
    "token": _rate("FACETS_RATE_TOKEN", "30000/minute"),
    # every request without a token, per client address
    "anon": _rate("FACETS_RATE_ANON", "3000/minute"),
    # log-in attempts per address and per username; registrations per address
    "login": _rate("FACETS_RATE_LOGIN", _AUTH_RATE or "600/minute"),
    "login_username": _rate("FACETS_RATE_LOGIN_USERNAME", "20/minute"),
    "register": _rate("FACETS_RATE_REGISTER", _AUTH_RATE or "600/minute"),
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.BearerTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticatedOrReadOnly",
        # A token must hold the view's scope (accounts/scopes.py).
        "accounts.permissions.HasTokenScope",
    ],
    "DEFAULT_THROTTLE_CLASSES": [
        "accounts.throttling.TokenThrottle",
        "accounts.throttling.AnonymousAddressThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": THROTTLE_RATES,
    # X-Forwarded-For hops to trust for the client address: 0 (the default)
    # trusts none; set 1 behind one reverse proxy that sets the header.
    "NUM_PROXIES": env.int("FACETS_NUM_PROXIES", default=0),
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["config.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "config.schema.FacetsAutoSchema",
    "EXCEPTION_HANDLER": "config.errors.api_exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Facets API",
    "DESCRIPTION": "Asynchronous dice and board games: lobby, play, event log and replay.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Served from the sidecar package so the docs work with no internet.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Operation ids and tags from the path after /api/v1: games_list, not
    # api_v1_games_list (a generated client's functions are named after them).
    "SCHEMA_PATH_PREFIX": r"/api/v[0-9]+",
    # Fields named "status" or "scope" with different choices: name each enum.
    "ENUM_NAME_OVERRIDES": {
        "GrantableScopeEnum": "accounts.scopes.GRANTABLE_SCOPES",
        "ScopeEnum": "accounts.scopes.SESSION_SCOPES",
        "GameStatus": "games.models.GameStatus.values",
        "DeliveryStatusEnum": "games.webhooks.models.DeliveryStatus",
        "TokenKindEnum": "accounts.models.TokenKind",
        "NotificationKindEnum": "games.notifications.KINDS",
    },
    "APPEND_COMPONENTS": {
        "schemas": {
            "GameAction": {
                "type": "object",
                "description": "An action: its type and the ruleset's own fields "
                "(docs/rules/<game>.md), exactly as legal-actions lists it.",
                "properties": {"type": {"type": "string"}},
                "required": ["type"],
                "additionalProperties": {},
            }
        }
    },
}

REDIS_URL = env.str("REDIS_URL", default="")

# The cache holds rate-limit counters, which every web process must share:
# Redis when REDIS_URL is set, else files under var/ (the embedded default's
# processes share one machine). Never the per-process local-memory cache.
CACHES: dict[str, Any]
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "facets",
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
            "KEY_PREFIX": "facets",
            "OPTIONS": {"MAX_ENTRIES": 5000},
        }
    }

# --- Celery -----------------------------------------------------------------
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any]
BROKER_DIR = VAR_DIR / "broker"
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
else:
    # Embedded default: a broker in files, good for one machine.
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
    }
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 60
CELERY_TASK_SOFT_TIME_LIMIT = 50
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# How often beat sweeps expired deadlines and overdue system steps / bot moves.
FACETS_SWEEP_SECONDS = env.float("FACETS_SWEEP_SECONDS", default=5.0)
# A bot seat or a due dice roll gets a task at once; if that message is lost,
# the sweep picks the work up after this many seconds.
FACETS_TASK_GRACE_SECONDS = env.float("FACETS_TASK_GRACE_SECONDS", default=10.0)
FACETS_MIN_TURN_TIMEOUT = 10
FACETS_MAX_TURN_TIMEOUT = 14 * 24 * 3600
FACETS_DEFAULT_TURN_TIMEOUT = 24 * 3600
# After this many automatic moves in a row a seat is played by the bot.
FACETS_ZOMBIE_AFTER = 3

# Webhooks (docs/api.md#webhooks): retries after 10 s, 20 s, 40 s, ... (at
# most an hour apart), FACETS_WEBHOOK_MAX_ATTEMPTS attempts in all, each
# waiting at most FACETS_WEBHOOK_TIMEOUT_SECONDS for an answer. Private and
# loopback addresses are allowed by default (a self-hosted service often
# notifies its own network); set FACETS_WEBHOOK_ALLOW_PRIVATE=false on a
# public server so users cannot make it probe its own network.
FACETS_WEBHOOK_TIMEOUT_SECONDS = env.float("FACETS_WEBHOOK_TIMEOUT_SECONDS", default=5.0)
FACETS_WEBHOOK_MAX_ATTEMPTS = env.int("FACETS_WEBHOOK_MAX_ATTEMPTS", default=10)
FACETS_WEBHOOK_BACKOFF_SECONDS = env.float("FACETS_WEBHOOK_BACKOFF_SECONDS", default=10.0)
FACETS_WEBHOOK_MAX_BACKOFF_SECONDS = env.float("FACETS_WEBHOOK_MAX_BACKOFF_SECONDS", default=3600.0)
FACETS_WEBHOOK_ALLOW_PRIVATE = env.bool("FACETS_WEBHOOK_ALLOW_PRIVATE", default=True)
FACETS_WEBHOOK_MAX_PER_USER = env.int("FACETS_WEBHOOK_MAX_PER_USER", default=10)

# Idempotency-Key records are kept this long (at least a day), then purged.
FACETS_IDEMPOTENCY_KEY_TTL = timedelta(
    hours=max(24.0, env.float("FACETS_IDEMPOTENCY_KEY_HOURS", default=24.0))
)

# --- Live updates (docs/api.md "Live updates") ------------------------------
# A comment line is sent on a stream silent for this long (proxies close idle
# connections; clients detect a dead one).
FACETS_SSE_KEEPALIVE_SECONDS = env.float("FACETS_SSE_KEEPALIVE_SECONDS", default=15.0)
# How long EventSource waits before reconnecting (the SSE "retry:" field).
FACETS_SSE_RETRY_MS = env.int("FACETS_SSE_RETRY_MS", default=3000)
# Without Redis, streams and long-polls check the database this often.
FACETS_LIVE_POLL_SECONDS = env.float("FACETS_LIVE_POLL_SECONDS", default=1.0)
FACETS_LONG_POLL_MAX_WAIT = 60
# Redis pub/sub channels are global to a Redis server (database numbers do
# not separate them): deployments sharing one Redis need distinct prefixes.
FACETS_PUBSUB_PREFIX = env.str("FACETS_PUBSUB_PREFIX", default="facets")

CELERY_BEAT_SCHEDULE = {
    "sweep-due-work": {"task": "games.tasks.sweep_due_work", "schedule": FACETS_SWEEP_SECONDS},
    "sweep-webhook-deliveries": {
        "task": "webhooks.tasks.sweep_deliveries",
        "schedule": FACETS_SWEEP_SECONDS,
    },
    "purge-idempotency-records": {
        "task": "idempotency.tasks.purge_expired_records",
        "schedule": 3600.0,
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
AUTH_USER_MODEL = "accounts.User"
