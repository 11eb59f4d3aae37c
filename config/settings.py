"""Settings, read from the environment (see deploy/env.example).

With no environment at all the service runs on an embedded default: a SQLite
file and a file-system Celery broker under ``var/``. Set ``DATABASE_URL`` and
``REDIS_URL`` to use PostgreSQL and Redis.
"""

from pathlib import Path
from typing import Any

import environ

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
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Serves the admin's and the API docs' static files under gunicorn, offline.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # ETag on every GET; a client polling with If-None-Match gets 304 and no body.
    "django.middleware.http.ConditionalGetMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
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
else:
    DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
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

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.BearerTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "config.schema.FacetsAutoSchema",
    "EXCEPTION_HANDLER": "config.errors.api_exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "DEFAULT_THROTTLE_RATES": {"auth": env.str("AUTH_THROTTLE_RATE", default="30/minute")},
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
    "ENUM_NAME_OVERRIDES": {"GameStatus": "games.models.GameStatus.values"},
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

# --- Celery -----------------------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="")
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

CELERY_BEAT_SCHEDULE = {
    "sweep-due-work": {"task": "games.tasks.sweep_due_work", "schedule": FACETS_SWEEP_SECONDS},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
AUTH_USER_MODEL = "accounts.User"
