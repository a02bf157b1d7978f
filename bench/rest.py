"""REST API benchmark: WordPress-style reads next to the MCP tools they mirror, in one run.

    scripts/with-postgres .venv/bin/python bench/rest.py [--duration 10] [--rounds 3]

Same machinery as bench/mcp.py (its database loader, workload, servers and wrk driver are
imported from there): a synthetic glossary of 10,000 terms in a throwaway PostgreSQL, our
production configuration (granian WSGI, 1 worker, DEBUG off, persistent connection, prepared
statements) pinned to CPU 1, wrk pinned to CPU 0, rounds interleaved. The MCP result cache is
off (`MCP_RESULT_CACHE_SIZE=0`) so that `get_term`/`search_term` run their selectors on every
call, and the REST API has no response cache: every request below is the cold path, rotating
through 50 distinct slugs or queries. A conditional REST request (If-None-Match with the
ETag of a first GET) is measured too, as the cheap path.

Rotating 50 queries keeps the search engine's per-word records warm (no answer is cached, but
every word has been seen). The cold path is measured too: `--distinct` queries split over the
rounds and the two scenarios, never repeated (bench/queries.py: names, prefixes, words without
diacritics, typos, inflected forms, two words, questions, comparisons, descriptions), MCP
`search_term` and REST `?search=` each on their own queries, every round on new ones.

Reported per scenario: SQL queries per request (counted in-process through the whole Django
stack), requests/s, p50/p99 latency and the server's CPU per request from /proc; the REST rows
also give their CPU as a ratio of MCP `get_term` in the same round (target: at most 1.2). A
mixed scenario sends the seven kinds in turn, one request each, as many clients would: each
request then follows a different statement, which one kind at a time never shows.
Figures depend on the machine; ratios from one run are what transfer. Nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_here = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]
sys.path.insert(0, str(ROOT))

from bench import mcp as machinery  # noqa: E402  (after the path fix)

API = "/wp-json/webflux/v1"
REFERENCE = "MCP get_term (legacy)"
MIXED = "mixed: the seven kinds above in turn"
COLD = ("MCP search_term, distinct queries", "REST /terms?search=, distinct queries")


def rest_specs(paths: list[str], headers: dict | None = None) -> list[dict]:
    return [{"method": "GET", "path": path, "headers": dict(headers or {})} for path in paths]


def count_rest_queries(paths: list[str]) -> str:
    """SQL queries per REST request through the whole Django stack (test client)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client, counts = Client(), set()
    for path in paths:
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(path)
        assert response.status_code == 200, (path, response.content[:300])
        counts.add(len(ctx.captured_queries))
    return "–".join(str(c) for c in sorted(counts)) if len(counts) > 1 else str(counts.pop())


def count_mcp_queries(tool: str, items) -> str:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client, counts = Client(), set()
    for item in items:
        args = {"query": item[0], "limit": 10} if tool == "search_term" else {"slug": item}
        headers, body = machinery.tool_call(tool, args, "legacy")
        with CaptureQueriesContext(connection) as ctx:
            response = client.post(machinery.MCP_PATH, body, content_type="application/json",
                                   headers={"accept": headers["Accept"]})  # fmt: skip
        assert response.status_code == 200
        counts.add(len(ctx.captured_queries))
    return "–".join(str(c) for c in sorted(counts)) if len(counts) > 1 else str(counts.pop())


def check_rest(port: int, path: str, expected_slug: str | None) -> dict:
    status, headers, body = machinery.get(port, path)
    if status != 200:
        raise RuntimeError(f"REST {path}: HTTP {status} {body[:300]!r}")
    data = json.loads(body)
    if expected_slug is None:  # any answer will do (an empty list too: a query with no hit)
        return headers
    first = (data or [{}])[0] if isinstance(data, list) else data
    if first.get("slug") != expected_slug:
        raise RuntimeError(
            f"REST {path}: expected {expected_slug!r} first, got {first.get('slug')}"
        )
    return headers


def distinct_searches(port: int, args, tmp: Path) -> dict[str, dict]:
    """MCP `search_term` and REST `?search=` over queries never seen before: one slice of
    `--distinct` queries per round and scenario, no text in two slices (the engine keeps a
    record per word, so a query must not meet its own words from another scenario)."""
    from urllib.parse import quote

    from bench.queries import distinct
    from glossary.models import Term

    rows = list(
        Term.objects.published()
        .order_by("id")
        .values_list("name", "slug", "short_definition", "synonyms")
    )
    size = args.distinct // (2 * args.rounds)
    items = distinct(rows, count=2 * size * args.rounds, seed=args.seed + 1)
    mcp_files, rest_files = [], []
    for n in range(args.rounds):
        chunk = items[2 * n * size : 2 * (n + 1) * size]
        mcp = [(query, expected) for _kind, query, expected in chunk[:size]]
        paths = [f"{API}/terms?search={quote(query)}" for _kind, query, _e in chunk[size:]]
        specs = machinery.mcp_specs(machinery.MCP_PATH, "search_term", mcp, "legacy")
        if n == 0:  # a sample of each: a tool result, a list
            for spec in specs[:100]:
                status, _h, body = machinery.post(
                    port, machinery.MCP_PATH, spec["headers"], spec["body"].encode()
                )
                result = json.loads(body).get("result", {}) if status == 200 else {}
                if result.get("isError") is not False:
                    raise RuntimeError(f"search_term distinct: HTTP {status} {body[:300]!r}")
            for path in paths[:100]:
                check_rest(port, path, None)
        mcp_files.append(tmp / f"mcp-distinct-{n}.lua")
        machinery.write_requests(mcp_files[-1], specs)
        rest_files.append(tmp / f"rest-distinct-{n}.lua")
        machinery.write_requests(rest_files[-1], rest_specs(paths))
    machinery.log(f"cold searches: {len(items):,} distinct queries, {size:,} a scenario a round")
    return {
        name: {"file": files, "expected": 200, "slice": size}
        for name, files in zip(COLD, (mcp_files, rest_files), strict=True)
    }


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--terms", type=int, default=10_000)
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=machinery.THREADS)
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--workload", type=int, default=50)
    parser.add_argument("--only", help="comma-separated scenario name fragments")
    parser.add_argument("--reuse-db", action="store_true")
    parser.add_argument(
        "--distinct", type=int, default=80_000,
        help="never-repeated queries for the two cold search scenarios, split over them and "
        "the rounds (bench/queries.py draws ~90,000 at most from 10,000 terms; 0: none)",
    )  # fmt: skip
    parser.add_argument(
        "--distinct-duration", type=int, default=4,
        help="seconds per wrk run of a cold search scenario: short enough that a round's "
        "slice is not exhausted (the table says if one was)",
    )  # fmt: skip
    args = parser.parse_args()

    wrk, database_url, reused, tmp = machinery.start_run(
        "slownik_bench_rest", "bench-rest-", reuse=args.reuse_db
    )
    from django.core.management import call_command

    from glossary.models import Term

    started = time.monotonic()
    generator = "reused database" if reused else machinery.load_glossary(args.terms, args.seed)
    call_command("collectstatic", interactive=False, verbosity=0)
    machinery.log(
        f"{Term.objects.count():,} terms in {time.monotonic() - started:.1f} s ({generator})"
    )
    queries, slugs = machinery.pick_workload(args.workload, args.seed)
    ids = dict(Term.objects.filter(slug__in=slugs).values_list("slug", "id"))
    pages = max(1, Term.objects.published().count() // 10)
    from urllib.parse import quote

    rest = {
        "REST /terms?slug=": ([f"{API}/terms?slug={s}" for s in slugs], slugs),
        "REST /terms/<id>": ([f"{API}/terms/{ids[s]}" for s in slugs], slugs),
        "REST /terms?search=": (
            [f"{API}/terms?search={quote(q)}" for q, _ in queries],
            [s for _, s in queries],
        ),
        "REST /terms?slug=&_embed": ([f"{API}/terms?slug={s}&_embed" for s in slugs], slugs),
        # A client walking the list: a different page of ten each time (first row unchecked).
        "REST /terms?per_page=10&page=N": (
            [f"{API}/terms?per_page=10&page={1 + (i * 37) % pages}" for i in range(len(slugs))],
            [None] * len(slugs),
        ),
    }
    sql = {name: count_rest_queries(paths) for name, (paths, _) in rest.items()}
    sql[REFERENCE] = count_mcp_queries("get_term", slugs)
    sql["MCP search_term (legacy)"] = count_mcp_queries("search_term", queries)

    env = {**os.environ, **machinery.PROD_ENV, "DATABASE_URL": database_url,
           "PYTHONUNBUFFERED": "1", "MCP_RESULT_CACHE_SIZE": "0"}  # fmt: skip
    port = machinery.free_port()
    server = machinery.Server(
        "ours", machinery.granian_argv(args.threads, port), env, port,
        machinery.probe_mcp(machinery.MCP_PATH),
    )  # fmt: skip
    scenarios: dict[str, dict] = {}
    mixed: list[list[dict]] = []  # each kind's requests, for the mixed scenario
    try:
        server.start()
        mcp_scenarios = (
            ("get_term", slugs, REFERENCE),
            ("search_term", queries, "MCP search_term (legacy)"),
        )
        for tool, items, name in mcp_scenarios:
            specs = machinery.mcp_specs(machinery.MCP_PATH, tool, items, "legacy")
            for spec, item in zip(specs, items, strict=True):
                expected = item[1] if tool == "search_term" else item
                status, _h, body = machinery.post(
                    port, machinery.MCP_PATH, spec["headers"], spec["body"].encode()
                )
                problem = machinery.check_answer(status, body, expected)
                if problem:
                    raise RuntimeError(f"{name} {item!r}: {problem}")
            mixed.append(specs)
            path = tmp / f"{tool}.lua"
            machinery.write_requests(path, specs)
            scenarios[name] = {"file": path, "expected": 200}
        etags = []
        for name, (paths, expected) in rest.items():
            for path, slug in zip(paths, expected, strict=True):
                headers = check_rest(port, path, slug)
                if name == "REST /terms?slug=":
                    etags.append(headers["etag"])
            file = tmp / f"{len(scenarios)}.lua"
            mixed.append(rest_specs(paths))
            machinery.write_requests(file, mixed[-1])
            scenarios[name] = {"file": file, "expected": 200}
        # Every kind above in turn, one request each: what a server sees from many clients,
        # where consecutive requests run different statements.
        in_turn = [spec for turn in zip(*mixed, strict=True) for spec in turn]
        machinery.write_requests(tmp / "mixed.lua", in_turn)
        scenarios[MIXED] = {"file": tmp / "mixed.lua", "expected": 200}
        sql[MIXED] = "–"
        cond = [{"method": "GET", "path": p, "headers": {"If-None-Match": e}}
                for p, e in zip(rest["REST /terms?slug="][0], etags, strict=True)]  # fmt: skip
        if machinery.get(port, cond[0]["path"], cond[0]["headers"])[0] != 304:
            raise RuntimeError("conditional REST request was not answered 304")
        machinery.write_requests(tmp / "cond.lua", cond)
        scenarios["REST /terms?slug= conditional (304)"] = {
            "file": tmp / "cond.lua",
            "expected": 304,
        }
        sql["REST /terms?slug= conditional (304)"] = "1"
        wanted = [w.strip() for w in args.only.split(",")] if args.only else [""]
        # Drawing the cold queries takes ~25 s: only when a cold scenario is to run.
        if args.distinct and any(w in name for name in COLD for w in wanted):
            scenarios.update(distinct_searches(port, args, tmp))
        keep = {k: v for k, v in scenarios.items() if any(w in k for w in wanted)}
        scenarios = {REFERENCE: scenarios[REFERENCE], **keep}
        machinery.log(f"checked every answer; load: {uptime()}")

        results: dict[str, list[dict]] = {name: [] for name in scenarios}
        repeated: set[str] = set()  # cold scenarios whose run went past its slice
        loads = [uptime()]
        for round_no in range(1, args.rounds + 1):
            for name, scenario in scenarios.items():
                file, run_args = scenario["file"], args
                if isinstance(file, list):  # the cold searches: new queries every round
                    file = file[round_no - 1]
                    run_args = argparse.Namespace(
                        **{**vars(args), "duration": args.distinct_duration}
                    )
                run = machinery.run_wrk(wrk, server, file, run_args, scenario["expected"])
                if "slice" in scenario and run["rps"] * run_args.duration > scenario["slice"]:
                    repeated.add(name)
                run["round"] = round_no
                results[name].append(run)
                machinery.log(f"round {round_no} {name:38} {run['rps']:7.0f} req/s p99 "
                              f"{run['p99']:6.1f} ms cpu {run['cpu_ms']:.3f} ms/req")  # fmt: skip
            loads.append(uptime())
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    reference = {r["round"]: r["cpu_ms"] for r in results[REFERENCE]}
    lines = [
        f"REST API vs MCP, {Term.objects.count():,} terms, {args.rounds} rounds of "
        f"{args.duration} s, wrk -c{args.connections}, granian 1 worker × {args.threads} threads, "
        "MCP result cache off",
        "",
        "| scenario | SQL/req | req/s | p50 ms | p99 ms | CPU ms/req | CPU vs MCP get_term "
        "| PostgreSQL CPU ms/req | server + PostgreSQL vs MCP get_term |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    both = {r["round"]: r["cpu_ms"] + r["pg_ms"] for r in results[REFERENCE]}
    for name, runs in results.items():
        ratios = [r["cpu_ms"] / reference[r["round"]] for r in runs]
        totals = [(r["cpu_ms"] + r["pg_ms"]) / both[r["round"]] for r in runs]
        lines.append(
            f"| {name} | {sql.get(name, '–')} | {statistics.median(r['rps'] for r in runs):,.0f} "
            f"| {statistics.median(r['p50'] for r in runs):.2f} "
            f"| {statistics.median(r['p99'] for r in runs):.2f} "
            f"| {statistics.median(r['cpu_ms'] for r in runs):.3f} "
            f"| {statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f}) "
            f"| {statistics.median(r['pg_ms'] for r in runs):.3f} "
            f"| {statistics.median(totals):.2f} ({min(totals):.2f}–{max(totals):.2f}) |"
        )
    slices = [s["slice"] for s in scenarios.values() if "slice" in s]
    if slices:
        lines += [
            "",
            f"Cold searches: {slices[0]:,} queries per scenario and round, none repeated "
            f"within or across rounds or scenarios; {args.distinct_duration} s per run.",
        ]
        lines += [f"**{name}: a run sent more requests than its slice holds (some repeated).**"
                  for name in sorted(repeated)]  # fmt: skip
    lines += ["", "Load (uptime) before and after each round:", *[f"    {x}" for x in loads]]
    print("\n".join(lines))


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))
    main()
