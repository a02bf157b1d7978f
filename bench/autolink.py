"""Auto-linking benchmark: linking time per article, the cost of an edit, and page views.

    scripts/with-postgres .venv/bin/python bench/autolink.py --sizes 1000,10000

For each glossary size, in a fresh database of the throwaway cluster (a child process each):
1. imports the deterministic synthetic glossary (bench/synthetic.py) through the real import
   service, which also auto-links every imported body (timed: that is the bulk path);
2. builds the linker from the published terms (the per-process automaton; timed);
   `relink_texts` then relinks every text again (timed: the linking part of that import);
3. links a 5,000-word Markdown article full of inflected mentions, headings, code and links:
   the first call (cold stem cache) and then `--rounds` calls (p50/p95/max) — target: under
   50 ms at 10,000 terms;
4. stores 100 articles of ~500 words through `services.save_article`, then times the edits
   that relink other texts: renaming a term mentioned in many of them, changing its
   definition, unpublishing it, publishing a new term, and an edit that concerns no text
   (each reports how many texts were rewritten: only the concerned ones);
5. times the article page (Django test client, full renders, 300 requests each, the two
   interleaved) for an article shown with its stored links and for the same article with
   linking off, with the query count: page views pay nothing for auto-linking.
Nothing here is a test: figures depend on the machine (print `uptime` next to them).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from throwaway import create_database, environment

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ENV = environment("autolink")


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def article_markdown(rows: list[dict], words: int, rng: random.Random) -> str:
    """~`words` words of Markdown: paragraphs where about one word in twelve is a term's
    name or an inflected synonym, with headings, inline code, a code block and a link."""
    from bench.synthetic import Vocabulary

    vocab = Vocabulary(random.Random(7), 5_000)
    out, count, paragraph = [], 0, []
    while count < words:
        if rng.random() < 1 / 12:
            row = rng.choice(rows)
            phrase = rng.choice([row["name"], *row["synonyms"]])
        else:
            phrase = vocab.word(rng)
        paragraph.append(phrase)
        count += len(phrase.split())
        if len(paragraph) >= 60:
            out.append(" ".join(paragraph) + ".")
            paragraph = []
            if rng.random() < 0.2:
                out.append(f"## {vocab.word(rng).capitalize()} {rng.choice(rows)['name']}")
            if rng.random() < 0.1:
                out.append(f"```\n{rng.choice(rows)['name']} = 1\n```")
            if rng.random() < 0.2:
                out.append(
                    f"Zobacz `{vocab.word(rng)}` i [{rng.choice(rows)['name']}](https://example.com)."
                )
    out.append(" ".join(paragraph) + ".")
    return "\n\n".join(out)


def run_size(size: int, rounds: int) -> dict:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from bench import synthetic
    from glossary import autolink, services
    from glossary.markdown import render_markdown
    from glossary.models import Article, Status, Term
    from glossary.stemming import stem

    call_command("migrate", verbosity=0)
    # DEBUG=0 serves hashed static names from a manifest: collect into the temporary root.
    call_command("collectstatic", interactive=False, verbosity=0)
    result: dict = {"terms": size}
    started = time.perf_counter()
    synthetic.load(count=size, seed=1, batch=50_000)
    result["import_with_linking_s"] = round(time.perf_counter() - started, 2)
    rows = list(synthetic.term_rows(count=size, seed=1))
    rng = random.Random(size)
    started = time.perf_counter()
    call_command("relink_texts", verbosity=0)
    result["relink_everything_s"] = round(time.perf_counter() - started, 2)

    autolink.clear_cache()
    started = time.perf_counter()
    linker = autolink.current_linker()
    result["linker_build_ms"] = ms(time.perf_counter() - started)
    result["patterns"] = linker.patterns

    markdown = article_markdown(rows, 5_000, rng)
    html = render_markdown(markdown)
    result["article_words"] = len(markdown.split())
    stem.cache_clear()
    started = time.perf_counter()
    first = linker.link(html)
    result["link_first_call_ms"] = ms(time.perf_counter() - started)
    result["links_in_article"] = len(first.term_ids)
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        linker.link(html)
        times.append(time.perf_counter() - started)
    result["link_p50_ms"] = ms(statistics.median(times))
    result["link_p95_ms"] = ms(pct(times, 95))
    result["link_max_ms"] = ms(max(times))

    # Edits on a site with 100 articles that mention terms.
    popular = rows[3]
    articles = []
    started = time.perf_counter()
    for i in range(100):
        body = article_markdown(rows[:400], 500, rng) + f"\n\nO {popular['name']} jeszcze raz."
        articles.append(
            services.save_article(
                Article(
                    title=f"Artykuł {i}", slug=f"artykul-{i}", body=body, status=Status.PUBLISHED
                )
            )
        )
    result["article_save_ms_avg"] = ms((time.perf_counter() - started) / 100)
    term = Term.objects.get(slug=popular["slug"])
    mentioned = term.mentioned_by_articles.count() + term.mentioned_by_terms.count()
    result["texts_mentioning_edited_term"] = mentioned

    def snapshot() -> dict:
        texts = dict(Article.objects.values_list("id", "linked_html"))
        texts.update((-pk, html) for pk, html in Term.objects.values_list("id", "linked_html"))
        return texts

    def timed_edit(label: str, change) -> None:
        before = snapshot()
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            change()
            elapsed = time.perf_counter() - started
        after = snapshot()
        result[f"edit_{label}_ms"] = ms(elapsed)
        result[f"edit_{label}_queries"] = len(queries.captured_queries)
        result[f"edit_{label}_texts_rewritten"] = sum(
            1 for key, html in after.items() if before.get(key) != html
        )

    def rename():
        term.name = term.name + " Nowy"
        services.save_term(term)

    def definition():
        term.short_definition = "Inna definicja."
        services.save_term(term)

    def unrelated():
        other = Term.objects.get(slug=rows[-2]["slug"])
        other.body = other.body + " Dopisek."
        services.save_term(other)

    def new_term():
        services.save_term(Term(name="Zupełnie nowe pojęcie", slug="zupelnie-nowe",
                                short_definition="Nowe.", status=Status.PUBLISHED))  # fmt: skip

    timed_edit("rename", rename)
    timed_edit("definition", definition)
    timed_edit("unrelated_body", unrelated)
    timed_edit("publish_new", new_term)
    timed_edit("unpublish", lambda: services.unpublish_entries(entries=[term], editor=None))

    # Page views: the stored links versus the same article with linking off.
    linked = articles[0]
    plain = services.save_article(Article(title="Bez linków", slug="bez-linkow", body=linked.body,
                                          status=Status.PUBLISHED, autolink=False))  # fmt: skip
    client = Client()
    from glossary import views

    # Interleaved (linked, plain, linked, …) so that the machine's load hits both alike.
    page_times: dict[str, list[float]] = {"linked": [], "plain": []}
    for label, article in (("linked", linked), ("plain", plain)):
        url = article.get_absolute_url()
        client.get(url)
        executed = []
        with connection.execute_wrapper(
            lambda run, sql, *args, seen=executed: seen.append(sql) or run(sql, *args)
        ):
            response = client.get(url)
        result[f"page_{label}_queries"] = len(executed)
        result[f"page_{label}_bytes"] = len(response.content)
    for _ in range(300):
        for label, article in (("linked", linked), ("plain", plain)):
            views.TERM_PAGES.clear()
            started = time.perf_counter()
            response = client.get(article.get_absolute_url())
            page_times[label].append(time.perf_counter() - started)
            assert response.status_code == 200
    for label, times_ in page_times.items():
        result[f"page_{label}_p50_ms"] = ms(statistics.median(times_))
        result[f"page_{label}_p95_ms"] = ms(pct(times_, 95))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_size(args.child, args.rounds)))
        return
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("run under scripts/with-postgres (needs a PostgreSQL DATABASE_URL)")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    static_root = tempfile.mkdtemp(prefix="bench-autolink-static-")
    for size in (int(s) for s in args.sizes.split(",")):
        url = create_database(os.environ["DATABASE_URL"], f"bench_autolink_{size}")
        child = subprocess.run(
            [sys.executable, __file__, "--child", str(size), "--rounds", str(args.rounds)],
            env={**os.environ, **ENV, "DATABASE_URL": url, "STATIC_ROOT": static_root},
            stdout=subprocess.PIPE, text=True, check=True,
        )  # fmt: skip
        print(json.dumps(json.loads(child.stdout.strip().splitlines()[-1]), indent=1))
    shutil.rmtree(static_root, ignore_errors=True)
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
