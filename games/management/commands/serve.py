"""``python manage.py serve``: the whole service in one command.

Starts the web server (gunicorn with uvicorn workers: ASGI), a Celery
worker and Celery beat as child processes, prints where the API and its
docs are, and stops them all on Ctrl-C. With no DATABASE_URL / REDIS_URL it runs on the embedded default
(SQLite file and file-system broker under var/); with them, on PostgreSQL and
Redis. For production, run the three processes separately (deploy/).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Run web server, Celery worker and Celery beat together."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument(
            "--web-workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", "2"))
        )

    def handle(self, *args: Any, host: str, port: int, web_workers: int, **options: Any) -> None:
        settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
        if not settings.REDIS_URL:
            for folder in ("queue", "processed", "control"):
                (settings.BROKER_DIR / folder).mkdir(parents=True, exist_ok=True)
        call_command("migrate", interactive=False, verbosity=0)
        python = sys.executable
        commands = {
            "web": [
                python,
                "-m",
                "gunicorn",
                "config.asgi:application",
                # ASGI workers: live streams wait in an event loop, not a worker each.
                "--worker-class",
                "config.workers.UvicornWorker",
                "--bind",
                f"{host}:{port}",
                "--workers",
                str(web_workers),
                "--access-logfile",
                "-",
            ],
            # Workers log warnings only: the beat sweep runs every few seconds.
            "worker": [
                python,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--loglevel",
                "WARNING",
                "--concurrency",
                "2",
            ],
            "beat": [
                python,
                "-m",
                "celery",
                "-A",
                "config",
                "beat",
                "--loglevel",
                "WARNING",
                "--schedule",
                str(settings.VAR_DIR / "celerybeat-schedule"),
            ],
        }
        environments = {"web": self._web_environment()}
        children = {
            name: subprocess.Popen(cmd, env=environments.get(name))
            for name, cmd in commands.items()
        }
        database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        broker = "redis" if settings.REDIS_URL else f"file system ({settings.BROKER_DIR})"
        base = f"http://{host}:{port}"
        self.stdout.write(
            self.style.SUCCESS(
                f"\nFacets is starting (database: {database}, broker: {broker}).\n"
                f"  API:          {base}/api/v1/\n"
                f"  API docs:     {base}/api/docs/\n"
                f"  OpenAPI:      {base}/api/schema/\n"
                f"  Admin:        {base}/admin/  (create a user: python manage.py createsuperuser)\n"
                "Press Ctrl-C to stop.\n"
            )
        )
        self._supervise(children)

    def _web_environment(self) -> dict[str, str]:
        """On PostgreSQL the web workers keep a connection pool (see
        FACETS_DB_POOL in config/settings.py); set it to 0 to opt out."""
        environment = dict(os.environ)
        if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
            environment.setdefault("FACETS_DB_POOL", "1")
        return environment

    def _supervise(self, children: dict[str, subprocess.Popen]) -> None:
        stopping = False

        def stop(*_: Any) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            while not stopping:
                for name, child in children.items():
                    if child.poll() is not None:
                        self.stderr.write(f"{name} exited with {child.returncode}; stopping.")
                        stopping = True
                time.sleep(0.5)
        finally:
            for child in children.values():
                if child.poll() is None:
                    child.terminate()
            for child in children.values():
                try:
                    child.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    child.kill()
