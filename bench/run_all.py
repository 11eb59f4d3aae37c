"""Every performance figure in one run, on one PostgreSQL: ``scripts/bench``.

    scripts/bench                 # full run, about 6 minutes
    scripts/bench --quick         # shorter runs, for checking the harness
    scripts/bench --markdown out.md

Recreates the benchmark database (``DATABASE_URL``, facets_bench by default),
migrates it, then measures: appends (service, floor, peer), stored history
(storage, replay, reads at move 10 and 10,000) and HTTP under load with the
workers' memory. Prints each figure as it comes, then the table with ratios
and targets, and the machine it ran on.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import Results, recreate_database, setup_django, silence_broker  # noqa: E402

SECTIONS = ("costs", "appends", "history", "http", "streams")


def machine_facts(results: Results) -> None:
    import psutil

    from bench.common import raw_connection

    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    with raw_connection() as conn:
        pg = conn.execute("SHOW server_version").fetchone()[0]
        sync = conn.execute("SHOW synchronous_commit").fetchone()[0]
    load = os.getloadavg()
    results.facts.update(
        {
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "cpu": f"{os.cpu_count()} x {cpu}",
            "ram": f"{psutil.virtual_memory().total / 2**30:.1f} GiB",
            "postgresql": f"{pg} (synchronous_commit={sync})",
            "python": platform.python_version(),
            "load average at start": " ".join(f"{x:.2f}" for x in load),
        }
    )
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        results.facts["git"] = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()


def table(results: Results) -> str:
    lines = [
        "| section | figure | value | ratio | target | met |",
        "|---|---|---|---|---|---|",
    ]
    for f in results.figures:
        value = "n/a" if f.value is None else f"{f.value:,.1f} {f.unit}".strip()
        ratio = "" if f.ratio is None else f"{f.ratio:.2f}x {f.ratio_of}"
        met = "" if f.met is None else ("yes" if f.met else "**no**")
        note = f" ({f.note})" if f.note else ""
        lines.append(f"| {f.section} | {f.name}{note} | {value} | {ratio} | {f.target} | {met} |")
    facts = "\n".join(f"- {k}: {v}" for k, v in results.facts.items())
    return "\n".join(lines) + "\n\nMachine and run:\n\n" + facts + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs (checks the harness)")
    parser.add_argument(
        "--only",
        choices=SECTIONS,
        action="append",
        help="run only this section (repeatable); default: all",
    )
    parser.add_argument("--web-workers", type=int, default=None, help="default: as scripts/serve")
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = parser.parse_args()
    os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/facets_bench")
    if "postgres" not in os.environ["DATABASE_URL"]:
        raise SystemExit("the benchmarks run on PostgreSQL: set DATABASE_URL")
    started = time.time()
    recreate_database()
    setup_django()
    silence_broker()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    results = Results()
    machine_facts(results)
    results.facts["command"] = "scripts/bench " + " ".join(sys.argv[1:])

    from bench import appends, costs, history, http_load, streams

    quick = args.quick
    sections = args.only or SECTIONS
    if "costs" in sections:
        print("== costs of the hot paths", flush=True)
        costs.measure(results, repeats=100 if quick else 300)
    if "appends" in sections:
        print("== appends", flush=True)
        appends.measure(results, seconds=5 if quick else 15)
    if "history" in sections:
        print("== stored history", flush=True)
        played = history.play_finished_games(2 if quick else 6)
        history.storage(results, played)
        history.replay(results, played, repeats=3 if quick else 7)
        history.reads(results, long_events=10_000, repeats=100 if quick else 300)
    if "http" in sections:
        print("== HTTP under load", flush=True)
        http_load.measure(results, seconds=15 if quick else 60, web_workers=args.web_workers)
    if "streams" in sections:
        print("== idle live streams", flush=True)
        streams.measure(results)
    results.facts["load average at end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    results.facts["run time"] = f"{time.time() - started:.0f} s"
    text = table(results)
    print("\n" + text)
    if args.markdown:
        args.markdown.write_text(text)


if __name__ == "__main__":
    main()
