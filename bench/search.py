"""Search benchmark: import speed and `term_search` latency on a large synthetic glossary.

    scripts/with-postgres .venv/bin/python bench/search.py --sizes 100000,1000000

For each size, in a fresh database of the throwaway cluster (a child process per size):
1. generates the deterministic synthetic glossary of `bench/synthetic.py` (Polish-like words
   with diacritics, inflected forms, synonyms, Markdown bodies) and imports it through the real
   bulk import service `glossary.importing.import_terms` (search columns included), timed;
2. picks a fixed mix of 305 queries from the data (exact names, prefixes of 1-6 letters, one
   typo, inflected forms, two words in any order, no-hit words; questions, comparisons and
   descriptions from bench/queries.py, each with the term it names), seeded;
3. runs the mix once to warm up, then `--rounds` times, timing each `term_search` call;
4. prints p50/p95/p99 overall and per query type, and EXPLAIN (ANALYZE, BUFFERS) of the slowest
   query of the slowest type, so index use is visible;
5. with `--write`, puts the table into the Search section of docs/benchmarks.md.

`--search-columns-only` imports through the same service with its two last steps left out:
linking the texts (`linked_html` and the mention rows) and the import's revision. Search reads
neither, so the searched rows and indexes are the ones a full import writes (the same
validation, derived columns, COPY and link tables), and a million terms load in well under an
hour instead of several (a full import relinks every earlier text that mentions a new name,
batch after batch). Its import time is not the import service's and is reported as such.

Targets (issue 4): p99 <= 25 ms at 100k terms, <= 60 ms at 1M; 100k imported in < 2 minutes.
Nothing here is a test: figures depend on the machine.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_here = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]
sys.path.insert(0, str(ROOT))

from bench.throwaway import database  # noqa: E402  (after the path fix)

DOC = ROOT / "docs" / "benchmarks.md"
SECTION_START = "<!-- bench/search.py: start -->"
SECTION_END = "<!-- bench/search.py: end -->"
TARGET_P99_MS = {100_000: 25.0, 1_000_000: 60.0}
MIX = {"exact": 35, "prefix": 35, "typo": 35, "inflected": 35, "multi-word": 35, "no-hit": 25}
# Issue 10: what people and agents ask (bench/queries.py), with the term each should find.
QUESTION_MIX = {"question": 35, "comparison": 35, "description": 35}
ENV = {
    "DJANGO_SETTINGS_MODULE": "config.settings",
    "DEBUG": "0",
    "SECRET_KEY": "bench-search-" + "not-a-secret-only-for-a-throwaway-cluster-" * 2,
    "ALLOWED_HOSTS": "127.0.0.1",
    "SECURE_SSL_REDIRECT": "0",
    "LOG_LEVEL": "WARNING",
    # The production database settings (README): prepared statements, generic plans.
    "DB_SERVER_SIDE_BINDING": "1",
}


def log(*args) -> None:
    print(*args, file=sys.stderr, flush=True)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


# --- the query mix ------------------------------------------------------------------------------


def _typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 1)
    kind = rng.choice(("swap", "drop", "replace"))
    if kind == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "drop":
        return word[:i] + word[i + 1 :]
    return word[:i] + rng.choice("aeiouyklmnprstz") + word[i + 1 :]


def query_mix(seed: int) -> list[tuple[str, str]]:
    """305 (type, query, expected slug or "") drawn from published terms by id, the same for
    every run: 200 of today's kinds, 105 questions, comparisons and descriptions."""
    from bench.synthetic import inflect
    from glossary.models import Term
    from glossary.stemming import words

    rng = random.Random(f"mix:{seed}")
    top = Term.objects.order_by("-id").values_list("id", flat=True).first()
    ids = sorted({rng.randint(1, top) for _ in range(600)})
    rows = list(
        Term.objects.published()
        .filter(id__in=ids)
        .order_by("id")
        .values_list("name", "short_definition", "slug")
    )
    rng.shuffle(rows)
    pool = iter(rows * 3)
    mix: list[tuple[str, str, str]] = []
    for kind, n in MIX.items():
        made = 0
        while made < n:
            name, definition, _slug = next(pool)
            name_words = [w for w in name.split() if not w.isdigit()]
            long_words = [w for w in name_words if len(w) >= 6]
            if kind == "exact":
                query = name
            elif kind == "prefix":
                query = name[: (1, 2, 3, 4, 5, 6)[made % 6]]
            elif kind == "typo":
                if not long_words:
                    continue
                query = _typo(rng.choice(long_words).lower(), rng)
            elif kind == "inflected":
                query = inflect(name_words[0].lower(), rng)
            elif kind == "multi-word":
                extra = rng.choice(words(definition))
                query = (
                    f"{extra} {name_words[0].lower()}" if made % 2 else " ".join(name_words[::-1])
                )
            else:
                query = "".join(rng.choice("qvxwz") + rng.choice("aeiou") for _ in range(4))
            mix.append((kind, query, ""))
            made += 1
    from bench.queries import one

    for kind, n in QUESTION_MIX.items():
        made = 0
        while made < n:
            name, definition, slug = next(pool)
            other = rng.choice(rows)
            made_query = one(kind, (name, slug, definition, []), (other[0], other[2], "", []), rng)
            if made_query:
                mix.append((kind, *made_query))
                made += 1
    return mix


# --- one size (child process) -------------------------------------------------------------------


def run_size(
    size: int, seed: int, rounds: int, batch: int, reuse: bool = False, columns_only: bool = False
) -> dict:
    url, reused = database(os.environ["DATABASE_URL"], f"bench_search_{size}", reuse=reuse)
    os.environ.update(ENV, DATABASE_URL=url)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from bench.synthetic import batches
    from glossary.importexport import SourceRow
    from glossary.importing import import_terms
    from glossary.models import Term
    from glossary.search import term_search

    call_command("migrate", verbosity=0, interactive=False)
    if columns_only:  # see the module docstring: search reads neither
        import glossary.importing.apply

        glossary.importing.apply.relink_after_term_changes = lambda *args, **kwargs: None
        glossary.importing.apply._import_revision = lambda term_ids: None
    generate_s = import_s = 0.0
    done = 0
    t0 = time.perf_counter()
    for rows in [] if reused else batches(count=size, seed=seed, batch=batch):
        t1 = time.perf_counter()
        generate_s += t1 - t0
        import_terms(SourceRow(position=f"#{done + i}", data=r) for i, r in enumerate(rows))
        t0 = time.perf_counter()
        import_s += t0 - t1
        done += len(rows)
        log(f"  {size}: imported {done}/{size} ({import_s:.0f} s import, {generate_s:.0f} s gen)")
    t1 = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE glossary_term")
        cursor.execute("SELECT pg_total_relation_size('glossary_term')")
        table_bytes = cursor.fetchone()[0]
    analyze_s = time.perf_counter() - t1
    terms = Term.objects.count()

    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    mix = query_mix(seed)
    kinds = {**MIX, **QUESTION_MIX}
    for _kind, query, _expected in mix:  # warm-up: caches, connection, stemmer
        term_search(query=query, limit=10)
    samples: dict[str, list[float]] = {kind: [] for kind in kinds}
    slowest: dict[str, tuple[float, str]] = {}
    hits: dict[str, int] = dict.fromkeys(kinds, 0)
    firsts: dict[str, int] = dict.fromkeys(kinds, 0)
    for _round in range(rounds):
        for kind, query, expected in mix:
            t = time.perf_counter()
            found = term_search(query=query, limit=10)
            ms = (time.perf_counter() - t) * 1000
            samples[kind].append(ms)
            hits[kind] += bool(found)
            # A comparison names two terms and lists both first, in either order.
            top = [hit.slug for hit in found[: 2 if kind == "comparison" else 1]]
            firsts[kind] += bool(expected and expected in top)
            if ms > slowest.get(kind, (0.0, ""))[0]:
                slowest[kind] = (ms, query)
    every = [ms for values in samples.values() for ms in values]
    per_kind = {
        kind: {
            "p50": statistics.median(values),
            "p95": percentile(values, 95),
            "p99": percentile(values, 99),
            "max": max(values),
            "found": hits[kind] / rounds / kinds[kind],
            "first": firsts[kind] / rounds / kinds[kind] if kind in QUESTION_MIX else None,
        }
        for kind, values in samples.items()
    }
    worst_kind = max(per_kind, key=lambda k: per_kind[k]["p95"])
    with CaptureQueriesContext(connection) as ctx:
        term_search(query=slowest[worst_kind][1], limit=10)
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + ctx.captured_queries[-1]["sql"])
        plan = "\n".join(row[0] for row in cursor.fetchall())
    return {
        "size": size,
        "reused": reused,
        "columns_only": columns_only,
        "terms": terms,
        "generate_s": generate_s,
        "import_s": import_s,
        "analyze_s": analyze_s,
        "table_mb": table_bytes / 2**20,
        "samples": len(every),
        "p50": statistics.median(every),
        "p95": percentile(every, 95),
        "p99": percentile(every, 99),
        "per_kind": per_kind,
        "worst_kind": worst_kind,
        "load": load,
        "load_end": " ".join(Path("/proc/loadavg").read_text().split()[:3]),
        "worst_query": slowest[worst_kind][1],
        "plan": plan,
    }


# --- report -------------------------------------------------------------------------------------


def render(results: list[dict], rounds: int) -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    pg = "PostgreSQL"
    lines = [
        f"Run {dt.date.today().isoformat()} on {os.cpu_count()} cores ({cpu}), {pg} "
        f"{results[0].get('server_version', '')}, Python {platform.python_version()}; "
        f"`term_search(limit=10)` in-process, {len(MIX) + len(QUESTION_MIX)} query types, "
        f"305 queries × {rounds} rounds after one warm-up round; load average "
        f"{results[0].get('load', '?')} at the start, {results[-1].get('load_end', '?')} "
        "at the end.",
        "",
        "| terms | import (service) | p50 | p95 | p99 | p99 target | table + indexes |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        target = TARGET_P99_MS.get(r["size"])
        imported = "(reused)" if r.get("reused") else f"{r['import_s']:.0f} s"
        if r.get("columns_only") and not r.get("reused"):
            imported += " (search columns only, not the service's time)"
        lines.append(
            f"| {r['terms']:,} | {imported} | {r['p50']:.1f} ms | {r['p95']:.1f} ms "
            f"| **{r['p99']:.1f} ms** | {f'≤ {target:.0f} ms' if target else '–'} "
            f"| {r['table_mb']:,.0f} MB |"
        )
    for r in results:
        lines += [
            "",
            f"Per query type at {r['terms']:,} terms (share of queries with at least one hit):",
            "",
            "| type | p50 | p95 | p99 | max | found | named term first (comparison: top 2) |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for kind, k in r["per_kind"].items():
            first = "–" if k.get("first") is None else f"{k['first']:.0%}"
            lines.append(
                f"| {kind} | {k['p50']:.1f} ms | {k['p95']:.1f} ms | {k['p99']:.1f} ms "
                f"| {k['max']:.1f} ms | {k['found']:.0%} | {first} |"
            )
    return "\n".join(lines)


def write_doc(table: str) -> None:
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    block = f"{SECTION_START}\n{table}\n{SECTION_END}"
    if SECTION_START in text and SECTION_END in text:
        head, rest = text.split(SECTION_START, 1)
        text = head + block + rest.split(SECTION_END, 1)[1]
    else:
        text = text.rstrip() + "\n\n## Search\n\n" + block + "\n"
    DOC.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000", help="comma-separated term counts")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, default=50_000, help="terms per import call")
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="measure an existing bench_search_<size> database of this cluster instead of "
        "importing again (the cluster must outlive the first run: see bench/README.md)",
    )
    parser.add_argument(
        "--search-columns-only",
        action="store_true",
        help="import without linking the texts and without the revision (see above)",
    )
    parser.add_argument("--one-size", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if "DATABASE_URL" not in os.environ or not os.environ["DATABASE_URL"].startswith("postgres"):
        sys.exit("run under scripts/with-postgres (needs a PostgreSQL DATABASE_URL)")

    if args.one_size:
        result = run_size(
            args.one_size, args.seed, args.rounds, args.batch, args.reuse,
            args.search_columns_only,
        )  # fmt: skip
        from django.db import connection

        result["server_version"] = connection.cursor().connection.info.server_version
        print(json.dumps(result))
        return

    results = []
    for size in [int(s) for s in args.sizes.split(",") if s.strip()]:
        log(f"search benchmark: {size:,} terms")
        child = subprocess.run(
            [sys.executable, __file__, "--one-size", str(size), "--seed", str(args.seed),
             "--rounds", str(args.rounds), "--batch", str(args.batch)]
            + (["--reuse"] if args.reuse else [])
            + (["--search-columns-only"] if args.search_columns_only else []),
            stdout=subprocess.PIPE, text=True, check=True,
        )  # fmt: skip
        result = json.loads(child.stdout.strip().splitlines()[-1])
        v = result["server_version"]
        result["server_version"] = f"{v // 10000}.{v % 10000}"
        results.append(result)
        print(
            f"\n{result['terms']:,} terms: import {result['import_s']:.1f} s "
            f"(+{result['generate_s']:.1f} s generating rows, {result['analyze_s']:.1f} s "
            f"VACUUM ANALYZE), p50 {result['p50']:.2f} ms, p95 {result['p95']:.2f} ms, "
            f"p99 {result['p99']:.2f} ms over {result['samples']} calls"
        )
        for kind, k in result["per_kind"].items():
            print(
                f"  {kind:<11} p50 {k['p50']:6.2f}  p95 {k['p95']:6.2f}  p99 {k['p99']:6.2f}  "
                f"max {k['max']:6.2f} ms  found {k['found']:.0%}"
                + ("" if k.get("first") is None else f"  named first {k['first']:.0%}")
            )
        print(f"\nEXPLAIN ANALYZE of the slowest {result['worst_kind']} query "
              f"({result['worst_query']!r}):\n{result['plan']}")  # fmt: skip
    table = render(results, args.rounds)
    print("\n" + table)
    if args.write:
        write_doc(table)
        print(f"\nwritten to {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
