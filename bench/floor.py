"""How far a cold `get_term` (or an unseen `search_term`) can go in Python on this machine: ours,
the SDK reference and the floor, side by side in one run.

    scripts/with-postgres .venv/bin/python bench/floor.py [--duration 5] [--rounds 2]
    scripts/with-postgres .venv/bin/python bench/floor.py --tool search_term [--reuse-db]

Issue 16 asks a cold read for at least 3× the SDK reference's req/s at a third of its server
CPU. This benchmark says what that target costs: three servers under the same wrk load, each
pinned to CPU 1, every published slug at most once per run (each run gets the whole shuffled
list from another starting point: a 5-s run of the fastest server asks ~8,500 of the 9,686), in
both protocol forms:
- ours: the production command (`bench/mcp.py`'s), result cache off;
- the reference: `bench/reference_server.py` (SDK `MCPServer`, uvicorn), the same SQL;
- the floor: `bench/floor_server.py`, the same granian command around a bare WSGI function
  that decodes the POST, runs the one statement ours runs (captured from
  `selectors.term_detail(html=False)`), and encodes the row: no framework, no validation, no
  presenter. No Python server that reads the same row can answer for less.
It prints, per form, req/s, p99, server and PostgreSQL CPU per request, and what a third of the
reference's CPU leaves: the target as a budget, next to what the floor already spends.

With `--tool search_term` the workload is issue 10's: search queries never repeated
(`bench/queries.py`, every kind, the same slice to each server once per round, legacy form),
ours with the result cache off, the reference with its plain `ILIKE` search, and the floor is
`bench/floor_search_server.py`: our engine (`glossary.search.term_search`, its SQL and its
Python) in a bare WSGI function, no framework around it. Issue 10's target (≥ 2× the
reference's req/s, server plus PostgreSQL CPU ≤ half of its, p99 ≤ 25 ms) is printed as a row.
Nothing here is a test; read ratios from one run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_here = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]
sys.path.insert(0, str(ROOT))

from bench import mcp as bench  # noqa: E402  (after the path fix)

FORMS = {"legacy": "legacy", "modern": "2026-07-28"}


def capture_floor_sql(slugs: list[str], path: Path) -> None:
    """The statement `term_detail(html=False)` runs, as a template whose only variables are
    the slug and the clock; every sampled slug must give the same SQL."""
    from glossary import selectors

    template = None
    for slug in slugs:
        statements = bench.capture_statements(
            lambda s=slug: selectors.term_detail(slug=s, html=False)
        )
        if len(statements) != 1:
            sys.exit(f"term_detail({slug!r}) ran {len(statements)} statements, expected 1")
        sql, params = statements[0]
        current = {"sql": sql, "params": bench._template(params, slug=slug)}
        if template not in (None, current):
            sys.exit(f"term_detail({slug!r}): SQL differs from the first slug's")
        template = current
    path.write_text(json.dumps(template, ensure_ascii=False), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--terms", type=int, default=10_000)
    parser.add_argument("--duration", type=int, default=5, help="seconds per wrk run")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=bench.THREADS)
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--tool", choices=("get_term", "search_term"), default="get_term")
    parser.add_argument(
        "--per-run", type=int, default=8_000,
        help="search_term: distinct queries per round (each server gets the same ones once)",
    )  # fmt: skip
    parser.add_argument(
        "--reuse-db", action="store_true",
        help="keep the slownik_bench database of an earlier run in the same cluster",
    )  # fmt: skip
    args = parser.parse_args()
    wrk, database_url, reused, tmp = bench.start_run(
        "slownik_bench", "bench-floor-", reuse=args.reuse_db
    )
    if not reused:
        bench.load_glossary(args.terms, args.seed)

    from glossary.models import Term

    slugs = list(Term.objects.published().order_by("id").values_list("slug", flat=True))
    random.Random(args.seed).shuffle(slugs)
    search = args.tool == "search_term"
    forms = {"legacy": "legacy"} if search else FORMS
    if search:
        from bench.queries import distinct

        rows = list(
            Term.objects.published()
            .order_by("id")
            .values_list("name", "slug", "short_definition", "synonyms")
        )
        queries = distinct(rows, count=args.per_run * args.rounds, seed=args.seed)
        floor_app, floor_env = "bench.floor_search_server:application", {}
        probe_call = ("search_term", {"query": "mcp", "limit": 10})
    else:
        capture_floor_sql(slugs[:20], tmp / "floor.json")
        floor_app, floor_env = (
            "bench.floor_server:application",
            {"FLOOR_STATEMENTS": str(tmp / "floor.json")},
        )
        probe_call = ("get_term", {"slug": slugs[0]})
    problems = bench.capture_reference_sql([], slugs[:20], tmp / "reference.json")
    if problems:
        sys.exit("\n".join(problems))

    env = {**os.environ, **bench.PROD_ENV, "DATABASE_URL": database_url, "PYTHONUNBUFFERED": "1"}
    ports = {name: bench.free_port() for name in ("ours", "floor", "reference")}
    paths = {"ours": bench.MCP_PATH, "floor": bench.MCP_PATH, "reference": bench.REF_PATH}
    servers = {
        "ours": bench.Server(
            "ours", bench.granian_argv(args.threads, ports["ours"]),
            {**env, "MCP_RESULT_CACHE_SIZE": "0"}, ports["ours"], bench.probe_mcp(bench.MCP_PATH),
        ),
        "floor": bench.Server(
            "floor",
            bench.granian_argv(args.threads, ports["floor"], floor_app),
            {**env, **floor_env}, ports["floor"],
            lambda port: bench.post(port, bench.MCP_PATH, *bench.tool_call(
                *probe_call, "legacy"))[0] == 200,
        ),
        "reference": bench.Server(
            "reference", [sys.executable, str(ROOT / "bench" / "reference_server.py"), "--port",
                          str(ports["reference"]), "--statements", str(tmp / "reference.json")],
            env, ports["reference"], bench.probe_mcp(bench.REF_PATH),
        ),
    }  # fmt: skip
    runs = len(forms) * args.rounds * len(servers)
    step = len(slugs) // runs
    # The whole list per run, each from another start: no repeats within a run unless a server
    # answers more than len(slugs) requests in one (wrk then wraps around).
    chunks = iter(slugs[i * step :] + slugs[: i * step] for i in range(runs))
    per_run = args.per_run
    results: dict[tuple[str, str], list[dict]] = {}
    try:
        for server in servers.values():
            server.start()
        for round_no in range(1, args.rounds + 1):
            for form in forms:
                for name, server in servers.items():
                    if search:  # the round's slice, the same queries to every server
                        start = (round_no - 1) * per_run
                        items = queries[start : start + per_run]
                        specs = bench.mcp_specs(paths[name], "search_term", items, form)
                    else:
                        specs = bench.mcp_specs(paths[name], "get_term", next(chunks), form)
                    file = tmp / f"{name}-{form}-{round_no}.lua"
                    bench.write_requests(file, specs)
                    run = bench.run_wrk(wrk, server, file, args)
                    results.setdefault((form, name), []).append(run)
                    bench.log(
                        f"round {round_no} {form:7} {name:9} {run['rps']:7.0f} req/s "
                        f"p99 {run['p99']:6.1f} ms cpu {run['cpu_ms']:.3f} pg {run['pg_ms']:.3f}"
                    )
    finally:
        for server in servers.values():
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    workload = (
        f"search_term, {per_run:,} distinct queries per round (the same to each server), "
        if search
        else f"get_term, {len(slugs):,} slugs, each at most once per run, "
    )
    print(
        f"{workload}{args.rounds} rounds, median; wrk -t1 -c{args.connections} "
        f"-d{args.duration}s; load {bench.load_average()}\n"
    )
    print(
        "| form | server | req/s | × ref | p99 ms | CPU ms/req server | × ref | "
        "CPU ms/req PostgreSQL | server + PostgreSQL × ref |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for form, era in forms.items():
        med = {
            name: {k: statistics.median(r[k] for r in results[(form, name)])
                   for k in ("rps", "p99", "cpu_ms", "pg_ms")}
            for name in servers
        }  # fmt: skip
        ref = med["reference"]
        ref_total = ref["cpu_ms"] + ref["pg_ms"]
        for name, m in med.items():
            total = (m["cpu_ms"] + m["pg_ms"]) / ref_total
            print(f"| {era} | {name} | {m['rps']:,.0f} | {m['rps'] / ref['rps']:.2f}× | "
                  f"{m['p99']:.1f} | {m['cpu_ms']:.2f} | {m['cpu_ms'] / ref['cpu_ms']:.2f}× | "
                  f"{m['pg_ms']:.2f} | {total:.2f}× |")  # fmt: skip
        if search:
            print(f"| {era} | target (issue 10) | {2 * ref['rps']:,.0f} | 2.00× | 25.0 | | | | "
                  f"0.50× ({ref_total / 2:.2f} ms) |")  # fmt: skip
        else:
            print(f"| {era} | target (issue 16) | {3 * ref['rps']:,.0f} | 3.00× | 15.0 | "
                  f"{ref['cpu_ms'] / 3:.2f} | 0.33× | | |")  # fmt: skip


if __name__ == "__main__":
    main()
