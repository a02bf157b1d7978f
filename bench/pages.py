"""Reader pages under the site's full middleware: django-csp's own middleware against
config/csp.py's (the header text built once per process), in one process, interleaved.

    scripts/with-postgres .venv/bin/python bench/pages.py [--reuse-db] [--rounds 5]

On the synthetic glossary of bench/mcp.py (the same database name, so `--reuse-db` shares
it), two WSGI handlers built from the site's `MIDDLEWARE`, one with `csp.middleware.
CSPMiddleware` in place of `config.csp.CSPMiddleware`, serve term pages in the production
settings (DEBUG off, persistent connection, prepared statements), each round in turn:
- rendered: `--pages` distinct slugs, the per-process page cache emptied before each
  handler's pass, so every request renders its page (the cold path);
- cached: the same slugs again on the same handler, answered from that cache.
Reported: the process's CPU per page (median of the rounds), which is the server's side;
PostgreSQL's work is the same statements for both handlers. Nothing here is a test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_here = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]
sys.path.insert(0, str(ROOT))

from bench import mcp as machinery  # noqa: E402  (after the path fix)
from bench.throwaway import database  # noqa: E402

LIBRARY = "csp.middleware.CSPMiddleware"
OURS = "config.csp.CSPMiddleware"


def cpu_per_page(handler, environs) -> float:
    """Microseconds of this process's CPU per request, every response read to the end."""
    statuses: list[str] = []

    def start_response(status, headers, exc_info=None):
        statuses.append(status)

    started = time.process_time()
    for environ in environs:
        b"".join(handler(dict(environ), start_response))
    if any(not status.startswith("200") for status in statuses):
        raise RuntimeError(f"not every page answered 200: {sorted(set(statuses))}")
    return (time.process_time() - started) / len(environs) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--terms", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--pages", type=int, default=400, help="distinct slugs per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reuse-db", action="store_true")
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("run me under scripts/with-postgres (it provides a throwaway PostgreSQL)")
    url, reused = database(os.environ["DATABASE_URL"], "slownik_bench", reuse=args.reuse_db)
    # Pages link their static files through the manifest, as in production.
    os.environ["STATIC_ROOT"] = str(Path(tempfile.mkdtemp(prefix="bench-pages-")) / "static")
    machinery.setup_django(url)
    from django.core.management import call_command

    if not reused:
        machinery.load_glossary(args.terms, args.seed)
    call_command("collectstatic", interactive=False, verbosity=0)

    from django.conf import settings
    from django.core.handlers.wsgi import WSGIHandler
    from django.test import RequestFactory, override_settings

    from glossary.models import Term
    from glossary.views import TERM_PAGES

    assert OURS in settings.MIDDLEWARE, "config.csp.CSPMiddleware is not in MIDDLEWARE"
    handlers = {"django-csp": None, "config/csp.py": WSGIHandler()}
    with override_settings(MIDDLEWARE=[LIBRARY if m == OURS else m for m in settings.MIDDLEWARE]):
        handlers["django-csp"] = WSGIHandler()
    slugs = list(Term.objects.published().order_by("?").values_list("slug", flat=True))
    factory = RequestFactory(HTTP_HOST="127.0.0.1")
    warm = [factory.get(f"/slownik/{s}/").environ for s in slugs[:50]]
    for handler in handlers.values():
        cpu_per_page(handler, warm)
    figures = {(name, kind): [] for name in handlers for kind in ("rendered", "cached")}
    for n in range(args.rounds):
        chunk = slugs[(n + 1) * args.pages : (n + 2) * args.pages] or slugs[: args.pages]
        environs = [factory.get(f"/slownik/{s}/").environ for s in chunk]
        order = list(handlers) if n % 2 == 0 else list(reversed(handlers))
        for name in order:
            TERM_PAGES.clear()
            figures[(name, "rendered")].append(cpu_per_page(handlers[name], environs))
            figures[(name, "cached")].append(cpu_per_page(handlers[name], environs))
    print(
        f"\nTerm pages, {Term.objects.count():,} terms, {args.rounds} rounds of {args.pages} "
        f"distinct slugs, CPU µs per page of this process (median; range)\n"
    )
    print("| page | django-csp | config/csp.py | difference |")
    print("|---|---:|---:|---:|")
    for kind in ("rendered", "cached"):
        lib, ours = (statistics.median(figures[(h, kind)]) for h in handlers)
        spread = {
            h: f"{min(figures[(h, kind)]):,.0f}–{max(figures[(h, kind)]):,.0f}" for h in handlers
        }
        print(
            f"| {kind} | {lib:,.0f} ({spread['django-csp']}) | {ours:,.0f} "
            f"({spread['config/csp.py']}) | {ours - lib:+,.0f} ({(ours - lib) / lib:+.1%}) |"
        )


if __name__ == "__main__":
    main()
