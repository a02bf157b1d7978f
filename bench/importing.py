"""Bulk import benchmark: `manage.py import_glossary` of a synthetic glossary, phase by phase.

    scripts/with-postgres .venv/bin/python bench/importing.py --sizes 10000,100000
    scripts/with-postgres .venv/bin/python bench/importing.py --sizes 10000 --baseline DIR
    scripts/with-postgres .venv/bin/python bench/importing.py --sizes 10000 --profile

For each size, in a fresh database of the throwaway cluster (a child process each): writes
the deterministic synthetic glossary (bench/synthetic.py, with related links) as one JSON
file and imports it with `manage.py import_glossary FILE` — one all-or-nothing import that
also auto-links every imported body and writes the import's revision — timing the whole
command and each phase (from its progress messages). Then it checks what the rules demand:
every term is there, each has a revision, the stored links of a sample agree with a fresh
linking, and an export reads back as the file. `--baseline DIR` runs the same child in
another checkout (e.g. `git archive 9cae1f3 | tar -x -C DIR`), one after the other in the
same run, so the two figures share the machine's load; `--profile` prints cProfile's top
functions of the import. Nothing here is a test: print `uptime` next to the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from throwaway import create_database, drop_database, environment

ROOT = Path(__file__).resolve().parent.parent
# The production database settings (deploy/systemd, README): prepared statements with generic
# plans. An import from the admin runs in the web process under them, and so does
# `manage.py import_glossary` with the service's environment; without them the planner sees
# every statement's values and this benchmark would miss plans that only generic planning
# picks (the link states read back, docs/benchmarks.md "Bulk import").
ENV = {**environment("import"), "DB_SERVER_SIDE_BINDING": "1"}


class Phases:
    """The import's progress messages as a stopwatch: each message ends the previous phase."""

    def __init__(self):
        self.started = self.last = time.perf_counter()
        self.current = "start"
        self.times: dict[str, float] = {}

    def write(self, message: str, *args, **kwargs) -> None:
        now = time.perf_counter()
        key = message.split("…")[0].split(":")[0].strip()[:40]
        self.times[self.current] = round(self.times.get(self.current, 0) + now - self.last, 2)
        self.current, self.last = key, now

    def flush(self) -> None:
        pass


def run_child(size: int, profile: bool) -> dict:
    sys.path.insert(0, os.getcwd())  # the checkout being measured (this one or --baseline)
    sys.path.insert(1, str(ROOT))  # bench.synthetic from this checkout
    import django

    django.setup()
    from django.core.management import call_command

    from bench import synthetic

    call_command("migrate", verbosity=0)
    rows = next(synthetic.batches(count=size, seed=1, batch=size, related=True))
    path = Path(tempfile.mkdtemp(prefix="bench-import-")) / "terms.json"
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    phases = Phases()
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    cpu_before = cpu_seconds()
    started = time.perf_counter()
    call_command("import_glossary", str(path), verbosity=2, stderr=phases)
    total = time.perf_counter() - started
    cpu_after = cpu_seconds()
    if profiler is not None:
        import io
        import pstats

        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(45)
        print(out.getvalue(), file=sys.stderr)
    phases.write("end")
    result = {"terms": size, "import_s": round(total, 2), "phases_s": phases.times,
              "cpu_s": {k: round(cpu_after[k] - cpu_before[k], 2) for k in cpu_after}}  # fmt: skip
    result["checks"] = verify(rows)
    path.unlink()
    return result


def cpu_seconds() -> dict:
    """CPU used so far (user + system) by this process, its reaped worker processes and its
    PostgreSQL backend: on a shared machine, CPU is the figure the load does not inflate
    much (wall time is what the figures above it show)."""
    import resource

    from django.db import connection

    own = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    fields = Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return {
        "python": own.ru_utime + own.ru_stime,
        "workers": workers.ru_utime + workers.ru_stime,
        "postgres": (int(fields[11]) + int(fields[12])) / ticks,
    }


def verify(rows: list[dict]) -> dict:
    """The rules the speed must keep: all terms, a revision each, links right, round trip."""
    from reversion.models import Version

    from glossary import autolink
    from glossary.importing import export_terms
    from glossary.models import Term

    count = Term.objects.count()
    versions = Version.objects.get_for_model(Term).values("object_id").distinct().count()
    sample = list(Term.objects.order_by("id")[:: max(1, count // 200)])
    linker = autolink.current_linker()
    wrong = 0
    for term in sample:
        fresh = linker.link(term.body_html, exclude=term.pk)
        if (fresh.html or "") != (term.linked_html or "") and fresh.html is not None:
            wrong += 1
    exported = {row["slug"]: row for row in export_terms()}
    links: dict[str, set[str]] = {row["slug"]: set() for row in rows}
    for row in rows:  # `related` is symmetrical: a link declared on either side
        for other in row["related"]:
            links[row["slug"]].add(other)
            links[other].add(row["slug"])
    mismatched = sum(
        1
        for row in rows
        if (exported[row["slug"]]["name"], exported[row["slug"]]["body"],
            set(exported[row["slug"]]["related"])) != (row["name"], row["body"], links[row["slug"]])
    )  # fmt: skip
    return {"terms": count, "with_revision": versions, "links_wrong_in_sample": wrong,
            "sample": len(sample), "export_mismatches": mismatched}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--baseline", help="another checkout to measure in the same run")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_child(args.child, args.profile)))
        return
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("run under scripts/with-postgres (needs a PostgreSQL DATABASE_URL)")
    checkouts = [("this checkout", ROOT)]
    if args.baseline:
        checkouts.insert(0, ("baseline", Path(args.baseline).resolve()))
    for size in (int(s) for s in args.sizes.split(",")):
        for label, code in checkouts:
            print(label, code, "|", subprocess.run(["uptime"], capture_output=True, text=True)
                  .stdout.strip(), flush=True)  # fmt: skip
            name = f"bench_import_{size}"
            url = create_database(os.environ["DATABASE_URL"], name)
            command = [sys.executable, str(Path(__file__).resolve()), "--child", str(size)]
            if args.profile:
                command.append("--profile")
            try:
                child = subprocess.run(
                    command, cwd=code, stdout=subprocess.PIPE, text=True, check=True,
                    env={**os.environ, **ENV, "DATABASE_URL": url},
                )  # fmt: skip
            finally:
                drop_database(os.environ["DATABASE_URL"], name)
            print(json.dumps(json.loads(child.stdout.strip().splitlines()[-1]), indent=1))
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
