"""The gunicorn worker class for production: ``gunicorn config.asgi:application
-k config.workers.UvicornWorker``."""

from __future__ import annotations

from typing import Any

from uvicorn_worker import UvicornWorker as _UvicornWorker


class UvicornWorker(_UvicornWorker):
    CONFIG_KWARGS: dict[str, Any] = {
        **_UvicornWorker.CONFIG_KWARGS,
        # Django has no lifespan events; say so instead of letting uvicorn probe.
        "lifespan": "off",
        # Open streams never finish by themselves: on shutdown, give requests
        # in flight this long, then close the streams (clients reconnect to
        # another worker with Last-Event-ID).
        "timeout_graceful_shutdown": 5,
    }
