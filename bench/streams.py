"""The memory an idle live stream costs a web worker, once streams exist:
runs ``bench/stream_memory.py`` (from the live-updates work) on the benchmark
database and Redis, and reports its KiB per idle stream."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .common import Figure, Results

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "stream_memory.py"
STREAMS = 200


def measure(results: Results) -> None:
    if not SCRIPT.exists():
        results.add(Figure("memory", "idle live stream: no streams in this code yet", None, ""))
        return
    try:
        run = subprocess.run(
            [sys.executable, str(SCRIPT), "--streams", str(STREAMS)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
    except subprocess.TimeoutExpired:
        results.add(Figure("memory", "idle live stream: timed out after 300 s", None, ""))
        return
    figures = dict(
        line.split(None, 1) for line in run.stdout.splitlines() if line.strip() and " " in line
    )
    if run.returncode != 0 or "kib_per_stream" not in figures:
        tail = (run.stderr or run.stdout).strip().splitlines()[-1:] or ["no output"]
        results.add(Figure("memory", f"idle live stream: failed ({tail[0][:80]})", None, ""))
        return
    results.add(
        Figure(
            "memory",
            f"idle live stream, {STREAMS} open on one web worker",
            float(figures["kib_per_stream"]),
            "KiB/stream",
            note=f"threads {figures.get('threads_before', '?').strip()}"
            f" -> {figures.get('threads_after', '?').strip()}",
        )
    )
