"""A real Celery worker (solo pool, with beat) for the tests that need one."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def celery_worker(env: dict[str, str], tmp_path: Path) -> Iterator[subprocess.Popen]:
    """Run a worker with beat until the block ends, then print the end of its
    log. The log goes to a file, not a pipe: nobody reads a pipe while the
    test runs, and a worker that logs a lot would block once it is full."""
    log_path = tmp_path / f"worker-{time.monotonic_ns()}.log"
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--beat"]
    command += ["--pool", "solo", "--loglevel", "WARNING"]
    command += ["--schedule", str(tmp_path / f"beat-schedule-{time.monotonic_ns()}")]
    with log_path.open("w") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True
        )
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        print(log_path.read_text()[-5000:])
