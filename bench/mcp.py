"""MCP endpoint benchmark: Słownik against the official SDK server, same data, same SQL, same core.

    scripts/with-postgres .venv/bin/python bench/mcp.py [--duration 10] [--rounds 3]

Steps (see bench/README.md for the reasoning):
1. creates a database in the throwaway cluster (`DATABASE_URL` from scripts/with-postgres) and
   loads a deterministic synthetic glossary (10,000 terms by default);
2. checks that `bench/reference_server.py` runs exactly the SQL our selectors run, for every
   benchmark query and slug, and counts our SQL queries per MCP call in-process;
3. starts our production configuration (granian, WSGI interface, 1 worker, 1 blocking thread,
   persistent database connection, DEBUG off) and the SDK reference server (uvicorn, 1 worker),
   both pinned to CPU 1, and checks every answer of both for every query and slug;
4. drives them with `wrk` (pinned to CPU 0, 16 connections, `bench/wrk/rotate.lua` rotating 50
   queries or slugs), rounds interleaved ours/reference, and reads each server's CPU time from
   /proc before and after every run;
5. prints a Markdown table and writes it into the MCP section of docs/benchmarks.md.

Nothing here is a test: figures depend on the machine; ratios from one run are what transfer.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import platform
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this directory comes first on sys.path, where bench/mcp.py would shadow the
# SDK's `mcp` package: import from the project root instead.
_here = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]
sys.path.insert(0, str(ROOT))

from bench.capture import _template, capture_statements, detail_template  # noqa: E402
from bench.protocol import MODERN  # noqa: E402
from bench.throwaway import database  # noqa: E402  (after the path fix)

MCP_PATH = "/wp-json/webflux/v1/mcp"
REF_PATH = "/mcp"
LUA = ROOT / "bench" / "wrk" / "rotate.lua"
DOC = ROOT / "docs" / "benchmarks.md"
SECTION_START = "<!-- bench/mcp.py: start -->"
SECTION_END = "<!-- bench/mcp.py: end -->"
SERVER_CPU, LOAD_CPU = "1", "0"
# granian blocking threads of our one worker in the recommended production command.
THREADS = 4
CLK_TCK = os.sysconf("SC_CLK_TCK")

# The production environment the README recommends (DEBUG off, persistent connection).
PROD_ENV = {
    "DJANGO_SETTINGS_MODULE": "config.settings",
    "DEBUG": "0",
    "SECRET_KEY": "bench-" + "k3y-not-secret-only-for-a-throwaway-benchmark-cluster-" * 2,
    "ALLOWED_HOSTS": "127.0.0.1,testserver",
    "SECURE_SSL_REDIRECT": "0",
    "CONN_MAX_AGE": "600",
    # Prepared statements on a direct connection (config/settings.py explains the opt-in).
    "DB_SERVER_SIDE_BINDING": "1",
    "DB_PREPARE_THRESHOLD": "5",
    # No `SELECT 1` round trip per request (config/settings.py says what it costs).
    "CONN_HEALTH_CHECKS": "0",
    "SITE_URL": "http://127.0.0.1:8000",
    "LOG_LEVEL": "WARNING",
}


def log(*args) -> None:
    print(*args, file=sys.stderr, flush=True)


# --- environment --------------------------------------------------------------------------------


def ensure_wrk() -> str:
    path = shutil.which("wrk")
    if path:
        return path
    if os.geteuid() == 0 and shutil.which("apt-get"):
        log("wrk not found: installing Debian's wrk package")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        if subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], env=env).returncode:
            subprocess.run(["apt-get", "update", "-qq"], env=env, check=True)
            subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], env=env, check=True)
        path = shutil.which("wrk")
    if not path:
        sys.exit("wrk is required: sudo apt-get install -y wrk")
    return path


def setup_django(database_url: str) -> None:
    os.environ.update(PROD_ENV, DATABASE_URL=database_url)
    import django

    django.setup()


def start_run(database_name: str, prefix: str, *, reuse: bool) -> tuple[str, str, bool, Path]:
    """What a benchmark that starts servers does first (bench/mcp.py, rest.py, floor.py): check
    it runs under scripts/with-postgres, pin itself to the load's CPU, find wrk, create (or with
    `reuse` keep) the database, make a scratch directory (STATIC_ROOT for collectstatic, as
    production does) and set Django up. Returns (wrk, database URL, reused, scratch dir)."""
    global SERVER_CPU
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("run me under scripts/with-postgres (it provides a throwaway PostgreSQL)")
    if (os.cpu_count() or 1) < 2:
        SERVER_CPU = LOAD_CPU
        log("only one CPU: servers and wrk share it")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {int(LOAD_CPU)})
    wrk = ensure_wrk()
    database_url, reused = database(os.environ["DATABASE_URL"], database_name, reuse=reuse)
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    os.environ["STATIC_ROOT"] = str(tmp / "static")
    setup_django(database_url)
    return wrk, database_url, reused, tmp


def granian_argv(threads: int, port: int, app: str = "config.wsgi:application") -> list[str]:
    """The production command the README recommends (one granian WSGI worker, `threads`
    blocking threads), serving `app` on 127.0.0.1:`port`: ours in every benchmark, and the
    bare floor of bench/floor.py under the same server."""
    return [
        str(Path(sys.executable).parent / "granian"), "--interface", "wsgi", "--workers", "1",
        "--blocking-threads", str(threads), "--runtime-threads", "1", "--no-ws",
        "--log-level", "warning", "--host", "127.0.0.1", "--port", str(port), app,
    ]  # fmt: skip


# --- data ---------------------------------------------------------------------------------------


def load_glossary(count: int, seed: int) -> str:
    """Fill the database; returns a description of the generator used."""
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    try:
        from bench import synthetic
    except ImportError:
        synthetic = None
    if synthetic is not None and hasattr(synthetic, "load"):
        synthetic.load(count=count, seed=seed)
        generator = f"bench/synthetic.py (seed {seed})"
    else:
        _fallback_load(count, seed)
        generator = f"bench/mcp.py fallback generator (seed {seed})"
    analyze()
    return generator


def analyze() -> None:
    """Fresh planner statistics, as a production database has: right after a bulk load the
    planner misjudges row counts (measured: 18 ms instead of 0.2 ms for get_term's UNION)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


# fmt: off
_SYLLABLES = (
    "ka", "ko", "ła", "mo", "sie", "wy", "rze", "szcz", "ną", "ść", "ź", "ta", "pro", "to", "kół",
    "ser", "wer", "agen", "t", "ów", "da", "ne", "bą", "dź", "li", "sta", "ste", "ro", "wa",
    "nie", "ję", "zyk", "del", "kli", "ent", "sy", "gnał", "der", "zą", "ża", "ró", "ło", "gi",
)
# fmt: on


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))


def _fallback_load(count: int, seed: int) -> None:
    """A minimal deterministic generator (used until bench/synthetic.py exists)."""
    from django.utils import timezone

    from glossary.models import Article, Category, Status, Term
    from glossary.polish import polish_slugify

    rng = random.Random(seed)
    now = timezone.now() - dt.timedelta(days=1)
    categories = Category.objects.bulk_create(
        Category(name=f"Kategoria {_word(rng)} {i}", slug=f"kategoria-{i}", description=_word(rng))
        for i in range(20)
    )
    seen, terms = set(), []
    while len(terms) < count:
        name = " ".join(_word(rng) for _ in range(rng.randint(1, 3))).capitalize()
        slug = polish_slugify(name)
        if name.casefold() in seen or slug in seen:
            continue
        seen.update({name.casefold(), slug})
        term = Term(
            name=name,
            slug=slug,
            short_definition=" ".join(_word(rng) for _ in range(rng.randint(8, 20)))[:300] + ".",
            body="\n\n".join(
                " ".join(_word(rng) for _ in range(rng.randint(30, 60))) for _ in range(3)
            ),
            synonyms=[_word(rng) for _ in range(rng.randint(0, 2))],
            status=Status.PUBLISHED if rng.random() < 0.95 else Status.DRAFT,
            published_at=now,
        )
        term.refresh_derived()
        terms.append(term)
    terms = Term.objects.bulk_create(terms, batch_size=1000)
    through = Term.categories.through
    through.objects.bulk_create(
        through(term_id=t.pk, category_id=c.pk)
        for t in terms
        for c in rng.sample(categories, rng.randint(1, 2))
    )
    related, pairs = Term.related.through, set()
    for t in terms:
        for other in rng.sample(terms, rng.randint(0, 3)):
            if other.pk != t.pk:
                pairs.update({(t.pk, other.pk), (other.pk, t.pk)})
    related.objects.bulk_create(related(from_term_id=a, to_term_id=b) for a, b in pairs)
    articles = []
    for i in range(300):
        article = Article(
            title=f"Artykuł {_word(rng)} {i}",
            slug=f"artykul-{i}",
            lead=" ".join(_word(rng) for _ in range(20)),
            body=" ".join(_word(rng) for _ in range(200)),
            status=Status.PUBLISHED,
            published_at=now - dt.timedelta(hours=i),
        )
        article.refresh_derived()
        articles.append(article)
    articles = Article.objects.bulk_create(articles)
    links = Article.terms.through
    links.objects.bulk_create(
        links(article_id=a.pk, term_id=t.pk) for a in articles for t in rng.sample(terms, 8)
    )


def pick_workload(n: int, seed: int) -> tuple[list[tuple[str, str]], list[str]]:
    """`n` (query, expected first slug) pairs and `n` published slugs, deterministically.

    Queries are whole term names written the way people type them (as stored, lower-case, without
    diacritics, upper-case): every engine must rank an exact name first."""
    from glossary.models import Term
    from glossary.polish import fold

    rows = list(Term.objects.published().order_by("id").values_list("name", "slug", "name_folded"))
    rng = random.Random(seed + 1)
    # An exact name is unambiguous only if no other term folds to the same text.
    folded: dict[str, int] = {}
    for _name, _slug, nf in rows:
        folded[nf] = folded.get(nf, 0) + 1
    unique = [r for r in rows if folded[r[2]] == 1]
    picked = rng.sample(unique, n)
    styles = (lambda s: s, str.lower, fold, str.upper)
    queries = [(styles[i % 4](name), slug) for i, (name, slug, _nf) in enumerate(picked)]
    slugs = [slug for _name, slug, _nf in rng.sample(rows, n)]
    return queries, slugs


# --- requests -----------------------------------------------------------------------------------


def tool_call(tool: str, arguments: dict, form: str, rid: int = 1) -> tuple[dict, bytes]:
    """Headers and body of one `tools/call` in the legacy or the 2026-07-28 form."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    params: dict = {"name": tool, "arguments": arguments}
    if form == "modern":
        headers["MCP-Protocol-Version"] = MODERN
        headers.update({"Mcp-Method": "tools/call", "Mcp-Name": tool})
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
        }
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}
    return headers, json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def post(port: int, path: str, headers: dict, body: bytes) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", path, body=body, headers=headers)
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


def get(port: int, path: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def _slugs(value) -> list[str]:
    """Every "slug" value in a JSON document, in document order."""
    out: list[str] = []
    if isinstance(value, dict):
        if isinstance(value.get("slug"), str):
            out.append(value["slug"])
        for k, v in value.items():
            if k != "slug":
                out.extend(_slugs(v))
    elif isinstance(value, list):
        for v in value:
            out.extend(_slugs(v))
    return out


def check_answer(status: int, body: bytes, expected_slug: str) -> str | None:
    """None if the answer is a successful tool result whose first slug is `expected_slug`."""
    if status != 200:
        return f"HTTP {status}: {body[:200]!r}"
    try:
        message = json.loads(body)
    except ValueError:
        return f"not JSON: {body[:200]!r}"
    result = message.get("result") if isinstance(message, dict) else None
    if message.get("jsonrpc") != "2.0" or not isinstance(result, dict):
        return f"not a JSON-RPC result: {body[:300]!r}"
    if result.get("isError") or not isinstance(result.get("content"), list):
        return f"tool error: {body[:300]!r}"
    if not isinstance(result.get("structuredContent"), dict):
        return "no structuredContent"
    slugs = _slugs(result["structuredContent"])
    if not slugs or slugs[0] != expected_slug:
        return f"expected {expected_slug!r} first, got {slugs[:3]}"
    return None


def write_requests(path: Path, specs: list[dict]) -> None:
    def lua_str(value: str) -> str:
        assert "]==]" not in value
        return f"[==[{value}]==]"

    lines = ["return {"]
    for s in specs:
        headers = ", ".join(f'["{k}"] = {lua_str(v)}' for k, v in s["headers"].items())
        body = lua_str(s["body"]) if s.get("body") else "nil"
        lines.append(
            f'  {{method = "{s["method"]}", path = {lua_str(s["path"])}, '
            f"headers = {{{headers}}}, body = {body}}},"
        )
    lines.append("}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def mcp_specs(path: str, tool: str, items: list, form: str) -> list[dict]:
    specs = []
    for i, item in enumerate(items, start=1):
        arguments = {"query": item[0], "limit": 10} if tool == "search_term" else {"slug": item}
        headers, body = tool_call(tool, arguments, form, rid=i)
        specs.append({"method": "POST", "path": path, "headers": headers, "body": body.decode()})
    return specs


# --- in-process checks ----------------------------------------------------------------------------


def capture_reference_sql(queries, slugs, path: Path) -> list[str]:
    """Write the statements our selectors run for the reference server (see its docstring);
    returns the problems found (a slug whose SQL the get_term template does not reproduce)."""
    from django.utils import timezone

    from glossary.models import Term
    from glossary.search import term_search
    from glossary.selectors import _term_by_slug, _term_links

    def two_statements(slug, pk):
        # The reference keeps the two-statement read (the row, then a UNION of its links)
        # that term_detail ran before it became one statement: the same QuerySets.
        now = timezone.now()
        list(_term_by_slug(slug=slug, now=now))
        list(_term_links(pk=pk, now=now))

    items = [(slug, Term.objects.get(slug=slug).pk) for slug in slugs]
    template, problems = detail_template("get_term", "term", items, two_statements)
    searches = []
    for query, _slug in queries:
        statements = capture_statements(lambda q=query: term_search(query=q, limit=10))
        searches.append(
            {
                "query": query,
                "limit": 10,
                "statements": [{"sql": s, "params": _template(p)} for s, p in statements],
            }
        )
    path.write_text(
        json.dumps({"get_term": template, "search_term": searches}, ensure_ascii=False),
        encoding="utf-8",
    )
    return problems


def count_queries(queries, slugs) -> dict[str, int]:
    """SQL queries per MCP call of ours, through the whole Django stack (test client)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    out = {}
    for tool, items in (("search_term", queries), ("get_term", slugs)):
        counts = []
        for item in items:
            args = {"query": item[0], "limit": 10} if tool == "search_term" else {"slug": item}
            headers, body = tool_call(tool, args, "legacy")
            runs = []
            # A first call, its second (the result cache stores a call from its second
            # sight: mcp_endpoint/features/cache.py), then a repeat (the cache's case).
            for _ in range(3):
                with CaptureQueriesContext(connection) as ctx:
                    response = client.post(
                        MCP_PATH, body, content_type="application/json",
                        headers={"accept": headers["Accept"]},
                    )  # fmt: skip
                assert response.status_code == 200, response.content[:300]
                runs.append(len(ctx.captured_queries))
            counts.append(runs)
        first, second, repeat = (max(c[i] for c in counts) for i in range(3))
        out[tool] = (
            str(repeat)
            if first == second == repeat
            else f"{repeat} (first call {first}, second {second})"
        )
    return out


# --- servers --------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, name: str, argv: list[str], env: dict, port: int, probe) -> None:
        self.name, self.argv, self.env, self.port, self.probe = name, argv, env, port, probe
        self.proc: subprocess.Popen | None = None
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server)

    def start(self) -> None:
        cpu = ["taskset", "-c", SERVER_CPU] if shutil.which("taskset") else []
        self.proc = subprocess.Popen(
            cpu + self.argv, env=self.env, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited:\n{self.output()}")
            try:
                if self.probe(self.port):
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"{self.name} did not start:\n{self.output()}")

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-4000:]

    def pids(self) -> list[int]:
        """The server process and all its descendants."""
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
        out, todo = [], [self.proc.pid]
        while todo:
            pid = todo.pop()
            out.append(pid)
            todo.extend(children.get(pid, []))
        return out

    def cpu_seconds(self) -> float:
        total = 0
        for pid in self.pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])  # utime + stime
        return total / CLK_TCK

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def postgres_cpu_seconds() -> float:
    """CPU time of the throwaway cluster's server processes (postmaster and backends), read
    from /proc: the postmaster's pid is the first line of postmaster.pid in its data directory
    (scripts/with-postgres puts the cluster in $PGHOST/data)."""
    pid_file = Path(os.environ.get("PGHOST", "/nonexistent")) / "data" / "postmaster.pid"
    try:
        postmaster = int(pid_file.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry) == postmaster:
            # utime + stime, and cutime + cstime: backends that exited (a closed connection)
            # and were reaped by the postmaster keep counting.
            total += sum(int(x) for x in fields[11:15])
        elif int(fields[1]) == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total / CLK_TCK


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def run_wrk(wrk: str, server: Server, requests_file: Path, args, expected: int = 200) -> dict:
    url = f"http://127.0.0.1:{server.port}/"
    cpu = ["taskset", "-c", LOAD_CPU] if shutil.which("taskset") else []
    cmd = [*cpu, wrk, "-t1", f"-c{args.connections}", f"-d{args.duration}s", "--latency",
           "--timeout", "10s", "-s", str(LUA), url, "--", str(requests_file),
           str(expected)]  # fmt: skip
    before, pg_before = server.cpu_seconds(), postgres_cpu_seconds()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    after, pg_after = server.cpu_seconds(), postgres_cpu_seconds()
    line = next(x for x in out.splitlines() if x.startswith("BENCH "))
    stats = {k: int(v) for k, v in (kv.split("=") for kv in line.split()[1:])}
    requests = stats["requests"]
    if stats["bad_status"] or stats["bad_body"] or stats["socket_errors"] or not requests:
        raise RuntimeError(f"{server.name}: wrong answers under load: {line}\n{server.output()}")
    return {
        "rps": requests / (stats["duration_us"] / 1e6),
        "p50": stats["p50_us"] / 1000,
        "p99": stats["p99_us"] / 1000,
        "cpu_ms": (after - before) * 1000 / requests,
        "pg_ms": (pg_after - pg_before) * 1000 / requests,
        "load": load_average(),
    }


# --- profile ----------------------------------------------------------------------------------

# Where a sampled frame's time is booked, by the first matching path fragment (innermost frame
# that matches wins, so "ORM" time inside a selector counts as ORM, not as the selector).
BUCKETS = (
    ("psycopg (driver, network wait)", ("psycopg/", "psycopg_binary", "psycopg_pool")),
    ("ORM: build + compile SQL", ("django/db/models/sql/", "django/db/models/expressions",
                                 "django/db/models/query_utils", "django/db/models/lookups",
                                 "django/db/models/fields/", "django/db/models/functions")),
    ("ORM: QuerySet, rows to objects", ("django/db/models/query.py", "django/db/models/base.py",
                                        "django/db/models/manager.py")),
    ("Django DB layer (cursor, connection)", ("django/db/backends/", "django/db/utils.py",
                                              "django/db/__init__")),
    ("jsonschema validation", ("jsonschema/", "referencing/", "rpds")),
    ("JSON (orjson/json)", ("orjson", "json/")),
    ("glossary selectors/search", ("glossary/",)),
    ("MCP dispatcher and tools", ("mcp_endpoint/",)),
    ("Django middleware", ("django/middleware/", "django/contrib/sessions",
                           "django/contrib/auth", "django/contrib/messages", "whitenoise/")),
    ("Django templates", ("django/template/",)),
    ("Django request/response, URLs, signals", ("django/core/handlers", "django/http/",
                                                "django/urls/", "django/dispatch/",
                                                "django/core/", "django/utils/",
                                                "django/conf/")),
)  # fmt: skip


# Leaf frames that wait rather than compute (blocking on the database socket, an idle thread).
IDLE = ("Condition.wait", "Connection.wait (psycopg", "wait (threading", "select (", "epoll",
        "_run_once (asyncio/base_events", "poll (")  # fmt: skip


def summarize_profile(raw: Path, top: int = 15) -> str:
    """Buckets and hottest functions from py-spy's raw (collapsed-stack) output."""
    buckets: dict[str, int] = {}
    own: dict[str, int] = {}
    total = idle = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        frames = stack.split(";")
        if any(w in frames[-1] for w in IDLE):
            idle += n
            continue
        total += n
        where = "other (server loop, interpreter)"
        for frame in reversed(frames):
            hit = next((b for b, keys in BUCKETS if any(k in frame for k in keys)), None)
            if hit:
                where = hit
                break
        buckets[where] = buckets.get(where, 0) + n
        own[frames[-1]] = own.get(frames[-1], 0) + n
    if not total:
        return "no samples"
    lines = [
        f"{total} busy samples (plus {idle} waiting: for PostgreSQL, for a request, idle)",
        "",
        "| where (share of busy samples) | share |",
        "|---|---:|",
    ]
    for name, n in sorted(buckets.items(), key=lambda kv: -kv[1]):
        lines.append(f"| {name} | {100 * n / total:.1f}% |")
    lines += ["", "Hottest functions (self time):", ""]
    for frame, n in sorted(own.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"- {100 * n / total:5.1f}%  {frame}")
    return "\n".join(lines)


def profile(wrk: str, server: Server, requests_file: Path, args, out: Path) -> str:
    """Sample the server's busiest process with py-spy while wrk drives it."""
    pyspy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(pyspy).exists():
        return "py-spy not installed (.venv/bin/pip install py-spy)"
    worker = server.pids()[-1]
    spy = subprocess.Popen(
        [pyspy, "record", "-p", str(worker), "-r", "500", "--gil", "-f", "raw", "-o", str(out),
         "-d", str(args.duration)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    time.sleep(0.5)
    run_wrk(wrk, server, requests_file, args)
    spy.wait()
    return summarize_profile(out)


# --- report ---------------------------------------------------------------------------------------


def versions() -> dict[str, str]:
    from importlib.metadata import version

    import psycopg
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        pg = cursor.fetchone()[0].split()[0]
    cpu = "?"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    return {
        "Python": platform.python_version(),
        "Django": version("django"),
        "granian": version("granian"),
        "uvicorn": version("uvicorn"),
        "mcp": version("mcp"),
        "psycopg": psycopg.__version__,
        "PostgreSQL": pg,
        "machine": f"{os.cpu_count()} CPUs ({cpu}), {platform.machine()}",
    }


def fmt(x: float, digits: int = 0) -> str:
    return f"{x:,.{digits}f}"


def render(results: dict, meta: dict, args) -> str:
    lines = [
        f"Run {meta['date']} · {args.terms:,} terms ({meta['generator']}) · wrk `-t1 "
        f"-c{args.connections} -d{args.duration}s` on CPU {LOAD_CPU}, each server pinned to CPU "
        f"{SERVER_CPU} · {args.rounds} interleaved rounds, median shown.",
        "",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items()),
        "",
        f"Ours: granian `--interface wsgi --workers 1 --blocking-threads {args.threads}`, "
        "DEBUG=0, CONN_MAX_AGE=600, DB_SERVER_SIDE_BINDING=1 (prepared statements), "
        f"CONN_HEALTH_CHECKS={1 if args.health_checks else 0}, "
        + (
            "result cache off (MCP_RESULT_CACHE_SIZE=0). "
            if args.no_cache
            else "result cache on (the default: the workload's 50 queries and slugs are "
            "answered from it from their third call on, as repeated agent calls are). "
        )
        + "Reference: `bench/reference_server.py` (SDK `MCPServer`, stateless JSON, uvicorn "
        "1 worker, async psycopg pool of 4).",
        "",
        "| scenario | server | req/s | p50 ms | p99 ms | CPU ms/req server | CPU ms/req "
        "PostgreSQL | SQL/req | ours ÷ ref per round |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for scenario, row in results.items():
        for server in sorted((k for k in row if k != "sql"), key=lambda k: k == "reference"):
            runs = row.get(server)
            if not runs:
                continue
            ratios = ""
            if server != "reference" and row.get("reference"):
                pairs = list(zip(runs, row["reference"], strict=False))
                per_round = [o["rps"] / r["rps"] for o, r in pairs]
                cpu = statistics.median(o["cpu_ms"] / r["cpu_ms"] for o, r in pairs)
                ratios = " / ".join(f"{x:.2f}×" for x in per_round)
                ratios += f" (median {statistics.median(per_round):.2f}×; CPU {cpu:.2f}×)"
            lines.append(
                f"| {scenario} | {server} | {fmt(statistics.median(r['rps'] for r in runs))} | "
                f"{statistics.median(r['p50'] for r in runs):.1f} | "
                f"{statistics.median(r['p99'] for r in runs):.1f} | "
                f"{statistics.median(r['cpu_ms'] for r in runs):.2f} | "
                f"{statistics.median(r['pg_ms'] for r in runs):.2f} | "
                f"{row.get('sql', {}).get(server, row.get('sql', {}).get('ours', '–'))} | "
                f"{ratios} |"
            )
    loads = sorted({r["load"] for row in results.values() for k in ("ours", "reference")
                    for r in row.get(k, [])})  # fmt: skip
    if loads:
        lines += ["", f"Load average (1, 5, 15 min) after each run: {'; '.join(loads)}."]
    if meta.get("notes"):
        lines += [""] + [f"- {n}" for n in meta["notes"]]
    return "\n".join(lines) + "\n"


def write_doc(table: str) -> None:
    section = f"{SECTION_START}\n{table}{SECTION_END}\n"
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Benchmarks\n"
    if SECTION_START in text and SECTION_END in text:
        head, rest = text.split(SECTION_START, 1)
        tail = rest.split(SECTION_END, 1)[1].lstrip("\n")
        text = head + section + ("\n" + tail if tail else "")
    else:
        text = text.rstrip("\n") + "\n\n## MCP endpoint (`bench/mcp.py`)\n\n" + section
    DOC.write_text(text, encoding="utf-8")


# --- main -----------------------------------------------------------------------------------------


def distinct_scenario(servers: dict, args, tmp: Path) -> tuple[str, dict]:
    """`--distinct` search queries never repeated (bench/queries.py: names, prefixes, words,
    words without diacritics, typos, inflected forms, two words, no-hit words, questions,
    comparisons, descriptions), one slice per round, each server getting the same slice once:
    ours with the result cache off, the reference with its plain search."""
    from bench.queries import distinct
    from glossary.models import Term

    rows = list(
        Term.objects.published()
        .order_by("id")
        .values_list("name", "slug", "short_definition", "synonyms")
    )
    items = distinct(rows, count=args.distinct, seed=args.seed)
    size = len(items) // args.rounds
    slices = [items[i * size : (i + 1) * size] for i in range(args.rounds)]
    files: dict[str, list[Path]] = {"ours": [], "reference": []}
    keys = {"ours": "ours" if args.no_cache else "ours, cache off", "reference": "reference"}
    for n, chunk in enumerate(slices):
        queries = [(query, expected) for _kind, query, expected in chunk]
        for key, server_key in keys.items():
            path = MCP_PATH if key == "ours" else REF_PATH
            specs = mcp_specs(path, "search_term", queries, "legacy")
            if n == 0:  # every answer of a sample is a successful tool result on both servers
                for spec in specs[:300]:
                    status, _h, body = post(
                        servers[server_key].port, path, spec["headers"], spec["body"].encode()
                    )
                    message = json.loads(body) if status == 200 else {}
                    if status != 200 or message.get("result", {}).get("isError") is not False:
                        raise RuntimeError(f"{server_key} distinct: HTTP {status} {body[:300]!r}")
            files[key].append(tmp / f"{key}-distinct-{n}.lua")
            write_requests(files[key][-1], specs)
    log(f"distinct workload: {len(items):,} queries, {size:,} per round, none repeated")
    name = f"search_term, {len(items):,} distinct queries (legacy, our cache off)"
    return name, {"files": files, "servers": keys, "sql": {"ours": "1", "reference": 1}}


def distinct_reads(servers: dict, args, tmp: Path) -> dict:
    """The distinct-key reads of bench/coldreads.py: each MCP read in both eras on ours with
    the cache off and on (missing by construction) and on the reference; the REST reads and
    the reader pages (uncached renders, and 304s) on ours with the cache off."""
    from bench import coldreads

    out: dict[str, dict] = {}
    keys = ("ours, cache off", "ours, cache on", "reference")
    for read, calls in coldreads.workloads(args.seed).items():
        for form in ("legacy", "modern"):
            era = "2026-07-28" if form == "modern" else "legacy"
            name = f"{read} ({era}), {len(calls):,} distinct"
            files = {}
            for key in keys:
                path = REF_PATH if key == "reference" else MCP_PATH
                specs = coldreads.specs(calls, path, form)
                for spec, (method, _p, _n) in list(zip(specs, calls, strict=True))[:10]:
                    status, _h, body = post(
                        servers[key].port, path, spec["headers"], spec["body"].encode()
                    )
                    problem = coldreads.check(status, body, method)
                    if problem:
                        raise RuntimeError(f"{key} {name}: {problem}")
                files[key] = tmp / f"reads-{len(out)}-{key[-3:].strip()}.lua"
                write_requests(files[key], specs)
            out[name] = {"files": files, "sql": {}}
    cold = servers["ours, cache off"]
    api = "/wp-json/webflux/v1"
    for name, paths in {**coldreads.rest_paths(api), **coldreads.page_paths()}.items():
        for path in paths[:10]:
            status, _h, body = get(cold.port, path)
            if status != 200:
                raise RuntimeError(f"{name} {path}: HTTP {status} {body[:200]!r}")
        file = tmp / f"reads-{len(out)}.lua"
        write_requests(file, [{"method": "GET", "path": p, "headers": {}} for p in paths])
        out[f"{name}, {len(paths):,} distinct"] = {"files": {"ours, cache off": file}}
    articles = coldreads.page_paths()["reader article page, every slug once (uncached render)"]
    cond = []
    for path in articles[:50]:
        _s, headers, _b = get(cold.port, path)
        if "etag" in headers and get(cold.port, path, {"If-None-Match": headers["etag"]})[0] == 304:
            cond.append({"method": "GET", "path": path,
                         "headers": {"If-None-Match": headers["etag"]}})  # fmt: skip
    if len(cond) == 50:
        write_requests(tmp / "article304.lua", cond)
        out["reader article page, conditional (304)"] = {
            "files": {"ours, cache off": tmp / "article304.lua"}, "expected": 304,
        }  # fmt: skip
    return out


def probe_mcp(path):
    def probe(port: int) -> bool:
        headers, body = tool_call("search_term", {"query": "x"}, "legacy")
        return post(port, path, headers, body)[0] == 200

    return probe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--terms", type=int, default=10_000)
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument(
        "--threads", type=int, default=THREADS, help="granian blocking threads of our one worker"
    )
    parser.add_argument(
        "--no-cache", action="store_true",
        help="run ours with MCP_RESULT_CACHE_SIZE=0 (every call runs its selectors)",
    )  # fmt: skip
    parser.add_argument(
        "--health-checks", action="store_true",
        help="run ours with CONN_HEALTH_CHECKS=1 (a SELECT 1 round trip per request)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--workload", type=int, default=50, help="queries and slugs rotated")
    parser.add_argument("--only", help="comma-separated scenario names to run")
    parser.add_argument(
        "--distinct", type=int, default=60_000,
        help="distinct search queries for the cold workload (split over the rounds; 0: none)",
    )  # fmt: skip
    parser.add_argument(
        "--no-reads", dest="reads", action="store_false",
        help="leave out the distinct-key reads (bench/coldreads.py: every key once)",
    )  # fmt: skip
    parser.add_argument("--articles", type=int, default=5000, help="articles for the reads")
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    parser.add_argument(
        "--reuse-db", action="store_true",
        help="keep the slownik_bench database of an earlier run in the same cluster",
    )  # fmt: skip
    parser.add_argument("--keep-running", action="store_true", help="serve until Ctrl-C")
    parser.add_argument(
        "--profile", action="store_true",
        help="instead of the rounds, sample each selected scenario of ours with py-spy",
    )  # fmt: skip
    args = parser.parse_args()

    wrk, database_url, reused, tmp = start_run("slownik_bench", "bench-mcp-", reuse=args.reuse_db)

    from django.core.management import call_command

    started = time.monotonic()
    generator = "reused database" if reused else load_glossary(args.terms, args.seed)
    call_command("collectstatic", interactive=False, verbosity=0)
    log(f"loaded {args.terms:,} terms in {time.monotonic() - started:.1f} s ({generator})")
    if args.reads and not reused:
        from bench import coldreads

        coldreads.add_articles(args.articles, args.seed)
        analyze()
        log(f"added {args.articles:,} articles for the distinct-read workload")
    queries, slugs = pick_workload(args.workload, args.seed)

    notes = []
    statements = tmp / "statements.json"
    problems = capture_reference_sql(queries, slugs, statements)
    if problems:
        sys.exit("cannot give the reference server our SQL:\n  " + "\n  ".join(problems[:5]))
    notes.append(
        f"Same SQL: the reference runs the statements captured from our selectors for all "
        f"{len(queries)} queries and {len(slugs)} slugs, bound the way Django binds them "
        "(server-side, prepared after 5 executions per connection)."
    )
    if args.reads:
        from bench import coldreads

        problems = coldreads.capture(statements)
        if problems:
            sys.exit("cannot give the reference server our SQL:\n  " + "\n  ".join(problems[:5]))
    our_sql = count_queries(queries, slugs)
    captured = json.loads(statements.read_text(encoding="utf-8"))
    ref_sql = {
        "search_term": max(len(q["statements"]) for q in captured["search_term"]),
        "get_term": 2,
    }

    env = {**os.environ, **PROD_ENV, "DATABASE_URL": database_url, "PYTHONUNBUFFERED": "1"}
    our_env = dict(env)
    if args.no_cache:
        our_env["MCP_RESULT_CACHE_SIZE"] = "0"
    if args.health_checks:
        our_env["CONN_HEALTH_CHECKS"] = "1"
    port = free_port()
    ours = Server("ours", granian_argv(args.threads, port), our_env, port, probe_mcp(MCP_PATH))
    reference = Server(
        "reference",
        [sys.executable, str(ROOT / "bench" / "reference_server.py"), "--port",
         str(rport := free_port()), "--statements", str(statements)],
        env, rport, probe_mcp(REF_PATH),
    )  # fmt: skip
    servers = {"ours": ours, "reference": reference}
    if args.distinct and not args.no_cache:
        # The cold path: every call a miss, on a second instance of ours with the cache off.
        cold_env = {**our_env, "MCP_RESULT_CACHE_SIZE": "0"}
        servers["ours, cache off"] = Server(
            "ours, cache off",
            granian_argv(args.threads, cport := free_port()),
            cold_env, cport, probe_mcp(MCP_PATH),
        )  # fmt: skip
    if args.reads:
        from bench.coldreads import CACHE_ON_SIZE

        if "ours, cache off" not in servers:
            servers["ours, cache off"] = Server(
                "ours, cache off",
                granian_argv(args.threads, cport := free_port()),
                {**our_env, "MCP_RESULT_CACHE_SIZE": "0"}, cport, probe_mcp(MCP_PATH),
            )  # fmt: skip
        servers["ours, cache on"] = Server(
            "ours, cache on",
            granian_argv(args.threads, wport := free_port()),
            {**our_env, "MCP_RESULT_CACHE_SIZE": str(CACHE_ON_SIZE)}, wport, probe_mcp(MCP_PATH),
        )  # fmt: skip
    try:
        for server in servers.values():
            server.start()
        log(f"ours on :{ours.port} (pid {ours.proc.pid}), reference on :{reference.port}")

        scenarios: dict[str, dict] = {}
        for tool, items in (("search_term", queries), ("get_term", slugs)):
            for form in ("legacy", "modern"):
                name = f"{tool} ({'2026-07-28' if form == 'modern' else 'legacy'})"
                files = {}
                for key in ("ours", "reference"):
                    server = servers[key]
                    path = MCP_PATH if key == "ours" else REF_PATH
                    specs = mcp_specs(path, tool, items, form)
                    for spec, item in zip(specs, items, strict=True):
                        expected = item[1] if tool == "search_term" else item
                        status, _h, body = post(
                            server.port, path, spec["headers"], spec["body"].encode()
                        )
                        problem = check_answer(status, body, expected)
                        if problem:
                            raise RuntimeError(f"{key} {name} {item!r}: {problem}")
                    files[key] = tmp / f"{key}-{tool}-{form}.lua"
                    write_requests(files[key], specs)
                scenarios[name] = {
                    "files": files,
                    "sql": {"ours": our_sql[tool], "reference": ref_sql[tool]},
                }
        log(f"checked {4 * len(queries) + 4 * len(slugs)} answers of both servers")

        if args.distinct:
            name, files = distinct_scenario(servers, args, tmp)
            scenarios[name] = files

        if args.reads:
            scenarios.update(distinct_reads(servers, args, tmp))

        page_specs, cond_specs, expect_304 = [], [], 200
        for slug in slugs:
            path = f"/slownik/{slug}/"
            status, headers, _body = get(ours.port, path)
            if status != 200:
                raise RuntimeError(f"reader page {path}: HTTP {status}")
            page_specs.append({"method": "GET", "path": path, "headers": {}})
            cond = {}
            if "etag" in headers:
                cond["If-None-Match"] = headers["etag"]
            if "last-modified" in headers:
                cond["If-Modified-Since"] = headers["last-modified"]
            if cond and get(ours.port, path, cond)[0] == 304:
                expect_304 = 304
                cond_specs.append({"method": "GET", "path": path, "headers": cond})
        write_requests(tmp / "page.lua", page_specs)
        scenarios["reader page /slownik/<slug>/"] = {"files": {"ours": tmp / "page.lua"}}
        if expect_304 == 304 and len(cond_specs) == len(page_specs):
            write_requests(tmp / "page304.lua", cond_specs)
            scenarios["reader page, conditional (304)"] = {
                "files": {"ours": tmp / "page304.lua"}, "expected": 304,
            }  # fmt: skip
        else:
            notes.append("reader page: conditional GETs are not answered 304")

        if args.keep_running:
            log("serving; Ctrl-C to stop")
            signal.pause()
        if args.only:
            wanted = [w.strip() for w in args.only.split(",")]
            scenarios = {k: v for k, v in scenarios.items() if any(w in k for w in wanted)}

        if args.profile:
            for name, scenario in scenarios.items():
                for key, files in scenario["files"].items():
                    if isinstance(files, list):
                        files = files[0]
                    server = servers[scenario.get("servers", {}).get(key, key)]
                    out = tmp / f"profile-{len(key)}.txt"
                    print(f"\n### Profile: {name}, {key}\n")
                    print(profile(wrk, server, files, args, out))
            return

        results: dict[str, dict] = {}
        for round_no in range(1, args.rounds + 1):
            for name, scenario in scenarios.items():
                row = results.setdefault(name, {"sql": scenario.get("sql", {"ours": "–"})})
                for key in scenario["files"]:
                    server = servers[scenario.get("servers", {}).get(key, key)]
                    files = scenario["files"][key]
                    if isinstance(files, list):  # one slice of distinct requests per round
                        files = files[(round_no - 1) % len(files)]
                    run = run_wrk(wrk, server, files, args, scenario.get("expected", 200))
                    row.setdefault(key, []).append(run)
                    log(f"round {round_no} {name:34} {key:9} {run['rps']:8.0f} req/s "
                        f"p99 {run['p99']:6.1f} ms cpu {run['cpu_ms']:.2f} ms/req")  # fmt: skip
    finally:
        for server in servers.values():
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    notes.append(
        "Noise: a 2-core machine shared with other jobs; PostgreSQL is not pinned and competes "
        "with wrk on CPU 0. Compare the per-round ratios, not absolute req/s, across runs."
    )
    meta = {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "generator": generator,
        "versions": versions(),
        "notes": notes,
    }
    table = render(results, meta, args)
    print(table)
    if not args.no_write:
        write_doc(table)
        log(f"written to {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
