"""Auto-linking: the first mention of a published term inside a text becomes a link to it.

How a text is matched: its stored, sanitized HTML (`body_html`) is split into tags and text;
every word outside excluded elements (links, code, pre, kbd, samp, headings, and anything
marked `bez-linkow`) is stemmed with the search engine's own Polish stemmer
(`glossary.stemming.stem`, folded, so "serwera", "Serwerów" and "serwerem" are one word),
and the sequence of stem codes goes through one Aho-Corasick automaton (pyahocorasick, one
pass in C) holding every name and synonym of every published, linkable term. Of the matches the
leftmost longest wins ("serwer MCP" before "serwer"); a term is linked once per text, at its
first linkable mention, never to itself. A match never crosses an element, a sentence mark
or a comma, never takes half of a hyphenated compound ("JSON" inside "JSON-RPC"), and keeps
a hyphenated Polish ending with the word ("MCP-a"). A name written in capitals (an acronym:
"SSE", "MCP") or of one or two letters matches only the same letters in the same case.

The result is stored (`linked_html`, and the mentioned terms in `mentions`), so page views
pay nothing; the services in `glossary.services` relink exactly the texts a term change
concerns (`texts_affected`, `relink`), and `manage.py relink_texts` relinks everything.

The link is a plain `<a href>` with the definition in `title` (what readers without
JavaScript get); `static/js/tooltips.js` turns it into a WAI-ARIA tooltip.
"""

from __future__ import annotations

import itertools
import os
import re
from bisect import bisect_left
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from multiprocessing import get_all_start_methods, get_context

import ahocorasick
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Count, Max, Q, Sum
from django.utils.html import escape

from .db import bulk
from .db.cache import LRU
from .markdown import NO_LINK_CLASS
from .models import Article, Term, entry_path
from .stemming import query_stems, stem, words

LINK_CLASS = "term-link"
# Elements whose text is never linked; `bez-linkow` marks an editor's own exclusions.
EXCLUDED_TAGS = frozenset(
    {"a", "code", "pre", "kbd", "samp", "h1", "h2", "h3", "h4", "h5", "h6", "script", "style"}
)
VOID_TAGS = frozenset({"br", "hr", "img", "wbr"})
_CLASS_ATTR = re.compile(r'\bclass="([^"]*)"')
# What may stand between two words of one name: spaces, or one joining mark ("JSON-RPC",
# "text/event-stream", "HTTP/1.1", "2.0").
_JOINABLE_GAP = re.compile(r"(?:\s|&nbsp;)+|[-/.:@+]")
_HYPHEN = "-"
# A Polish ending written after an acronym ("MCP-a", "JSON-em", "API-ach").
_ENDING = re.compile(r"[a-ząćęłńóśźż]{1,3}")
# Alternatives per name word from `query_stems`, multiplied out; more is never useful.
_MAX_VARIANTS = 8

# The automaton reads one string: each word is its stem id written as `width` characters of
# base 64, each position from its own range (so a match can only start where a word does and
# no trie node has more than 64 children — a single character per id would give the root one
# child per stem, which pyahocorasick searches slowly); BARRIER stands where a match may not
# continue.
BARRIER = "\x01"
_DIGIT_RANGES = 0x100


def _encoder(count: int):
    width = 1
    while 64**width <= count:
        width += 1
    digits = [
        [chr(_DIGIT_RANGES + 64 * position + d) for d in range(64)] for position in range(width)
    ]

    def encode(number: int) -> str:
        chars = []
        for position in range(width):
            number, digit = divmod(number, 64)
            chars.append(digits[position][digit])
        return "".join(chars)

    return width, encode


# Written words remembered per linker (their stem ids); a dict this size is a few MB.
_KNOWN_WORDS = 200_000


@dataclass(frozen=True, slots=True)
class Target:
    """A term texts may link to, as the link shows it."""

    id: int
    slug: str
    name: str
    definition: str


@dataclass(frozen=True, slots=True)
class Result:
    html: str  # "" when nothing was linked (pages then show `body_html`)
    term_ids: tuple[int, ...]  # linked terms, in order of appearance


def _is_acronym(name: str) -> bool:
    letters = [ch for ch in name if ch.isalpha()]
    return bool(letters) and all(ch.isupper() for ch in letters) and len(name) <= 6


@lru_cache(maxsize=262_144)
def form_stems(form: str) -> tuple[tuple[tuple[str, ...], ...], str | None]:
    """The stem sequences a name or synonym is found by (the word stems, and for a word
    typed without diacritics the stems of the endings it may have lost: `query_stems`), and
    the exact letters an acronym or a one/two-letter name must be written with. Cached: a
    rebuild after one edit recomputes only the forms that changed."""
    parts = words(form)
    if not parts:
        return (), None
    exact = None
    if len(parts) == 1 and (_is_acronym(form) or len(parts[0]) <= 2):
        exact = re.sub(r"[\W_]+", "", form)
    alternatives = [query_stems(part) for part in parts]
    variants = tuple(itertools.islice(itertools.product(*alternatives), _MAX_VARIANTS))
    return variants, exact


# One pass over the HTML: a tag, an entity or a word (the same word rule as `stemming.words`).
# nh3 (html5ever) always double-quotes attributes but leaves ">" raw inside them.
_TOKEN = re.compile(
    r'<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:"[^"]*"|[^>"])*)>'
    r"|&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);"
    r"|[^\W_]+"
)


class Linker:
    """One automaton over the names and synonyms of `terms`; `link()` is thread-safe.

    Patterns are strings of stem ids, one character per word; each value is (term index,
    length in words, exact surface or None, is the term's own name)."""

    def __init__(self, terms: list[tuple[Target, list[str]]]) -> None:
        self.targets: list[Target] = []
        self.vocabulary: dict[str, str] = {}  # stem -> its code
        self._anchors: dict[int, str] = {}
        patterns: dict[tuple[int, ...], tuple] = {}
        numbers: dict[str, int] = {}
        for target, names in terms:
            index = len(self.targets)
            self.targets.append(target)
            for position, name in enumerate(names):
                variants, exact = form_stems(name)
                own = position == 0
                for variant in variants:
                    key = tuple(numbers.setdefault(s, len(numbers)) for s in variant)
                    held = patterns.get(key)
                    # Two terms sharing a form: a term's own name beats another's synonym,
                    # otherwise the first (Polish alphabetical order) keeps it.
                    if held is None or (own and not held[3]):
                        patterns[key] = (index, len(key), exact, own)
        self.width, encode = _encoder(len(numbers))
        codes = [encode(number) for number in range(len(numbers))]
        self.vocabulary = {stem_: codes[number] for stem_, number in numbers.items()}
        self.automaton = ahocorasick.Automaton(ahocorasick.STORE_ANY, ahocorasick.KEY_STRING)
        for key, pattern in patterns.items():
            self.automaton.add_word("".join(codes[number] for number in key), pattern)
        self.patterns = len(patterns)
        if patterns:
            self.automaton.make_automaton()
        self._word_ids: dict[str, str] = {}

    def link(self, html: str, *, exclude: int | None = None) -> Result:
        """`html` with the first linkable mention of each term wrapped in a link; `exclude`
        is the id of the text's own term (never linked to itself)."""
        if not html or not self.patterns:
            return Result("", ())
        starts, ends, texts, ids, hyphen = self._scan(html)
        if not starts:
            return Result("", ())
        chosen = self._choose(starts, texts, ids, hyphen, exclude)
        if not chosen:
            return Result("", ())
        out, at, linked = [], 0, []
        for first, last, index in chosen:
            start, end = starts[first], ends[last]
            out.append(html[at:start])
            out.append(self._anchor(index))
            out.append(html[start:end])
            out.append("</a>")
            at = end
            linked.append(self.targets[index].id)
        out.append(html[at:])
        return Result("".join(out), tuple(linked))

    def _scan(self, html: str):
        """The linkable words (offsets into `html`, text) in parallel lists, with `ids` the
        sequence the automaton reads: a stem code per word and BARRIER where a match may
        not continue (elements, punctuation, excluded passages). `hyphen[i]` is set when
        word i is glued to word i + 1 by a hyphen."""
        vocabulary_get = self.vocabulary.get
        known = self._word_ids  # written word -> stem id (or BARRIER), shared across calls
        starts: list[int] = []
        ends: list[int] = []
        texts: list[str] = []
        ids: list[str] = []  # one code per word, BARRIER entries between them
        slots: list[int] = []  # word index -> its first character in "".join(ids)
        hyphen: list[bool] = []
        add_start, add_end, add_text = starts.append, ends.append, texts.append
        add_id, add_slot, add_hyphen = ids.append, slots.append, hyphen.append
        width = self.width
        at = 0  # length of "".join(ids) so far
        stack: list[bool] = []
        excluded = 0
        previous_end = -1  # end of the previous word while no barrier came after it
        for token in _TOKEN.finditer(html):
            text = token.group()
            first = text[0]
            if first == "<":
                previous_end = -1
                add_id(BARRIER)
                at += 1
                name = token.group(2).lower()
                if name in VOID_TAGS or token.group(3).endswith("/"):
                    continue
                if token.group(1):
                    if stack:
                        excluded -= stack.pop()
                else:
                    off = name in EXCLUDED_TAGS or (
                        NO_LINK_CLASS in token.group(3) and _has_no_link_class(token.group(3))
                    )
                    stack.append(off)
                    excluded += off
                continue
            if excluded:
                continue
            if first == "&":
                if text != "&nbsp;":
                    previous_end = -1
                    add_id(BARRIER)
                    at += 1
                continue
            start = token.start()
            if previous_end >= 0:
                gap = html[previous_end:start]
                if gap == "-":
                    hyphen[-1] = True
                elif gap != " " and not _JOINABLE_GAP.fullmatch(gap):
                    add_id(BARRIER)
                    at += 1
            add_start(start)
            previous_end = token.end()
            add_end(previous_end)
            add_text(text)
            add_hyphen(False)
            word_id = known.get(text)
            if word_id is None:
                if len(known) > _KNOWN_WORDS:
                    known.clear()
                word_id = known[text] = vocabulary_get(stem(text.casefold()), BARRIER)
            add_slot(at)
            add_id(word_id)
            at += 1 if word_id is BARRIER else width  # a word no term has stops a match
        return starts, ends, texts, (ids, slots), hyphen

    def _choose(self, starts, texts, sequence, hyphen, exclude):
        ids, slots = sequence
        candidates = []
        width = self.width
        for end, (target, length, exact, _own) in self.automaton.iter("".join(ids)):
            first = bisect_left(slots, end - length * width + 1)
            candidates.append((first, -length, first + length - 1, target, exact))
        if not candidates:
            return []
        candidates.sort()
        chosen, done, free_from = [], set(), 0
        targets = self.targets
        count = len(texts)
        for first, _length, last, index, exact in candidates:
            if first < free_from:
                continue
            if exact is not None and texts[first] != exact:
                continue
            if first and hyphen[first - 1]:
                continue  # the tail of a compound: "RPC" in "JSON-RPC"
            if hyphen[last]:
                following = last + 1
                if (
                    following >= count
                    or hyphen[following]
                    or not _ENDING.fullmatch(texts[following])
                ):
                    continue  # the head of a compound: "JSON" in "JSON-RPC"
                last = following  # "MCP-a": the ending goes with the word
            free_from = last + 1
            term_id = targets[index].id
            if term_id == exclude or term_id in done:
                continue  # consumed, not linked: no shorter term inside a repeated name
            done.add(term_id)
            chosen.append((first, last, index))
        return chosen

    def _anchor(self, index: int) -> str:
        anchor = self._anchors.get(index)
        if anchor is None:
            target = self.targets[index]
            url = entry_path("term", target.slug)
            anchor = self._anchors[index] = (
                f'<a href="{escape(url)}" class="{LINK_CLASS}" '
                f'data-term="{escape(target.slug)}" title="{escape(target.definition)}">'
            )
        return anchor


def _has_no_link_class(attributes: str) -> bool:
    match = _CLASS_ATTR.search(attributes)
    return bool(match) and NO_LINK_CLASS in match.group(1).split()


# --- the published glossary as a linker, cached per process --------------------------------


def link_forms(name: str, synonyms: list[str], unlinked=()) -> list[str]:
    """The forms a term is linked by: its name first, then its synonyms but the `unlinked`."""
    return [name, *(s for s in synonyms if s not in unlinked)]


def _fingerprint(using: str):
    """What the linker depends on, in one aggregate query: any publish, unpublish, rename,
    synonym or definition edit, linkable switch or deletion changes one of these."""
    row = (
        Term.objects.db_manager(using)
        .published()
        .filter(linkable=True)
        .aggregate(n=Count("id"), changed=Max("updated_at"), ids=Sum("id"))
    )
    return (row["n"], row["changed"], row["ids"])


# Per database (vendor, name): (fingerprint, rows, linker).
_cached = LRU(4)


def current_linker(*, using: str = DEFAULT_DB_ALIAS) -> Linker:
    """The linker for the glossary as published now: 1 query when nothing changed; when the
    fingerprint moved, the published terms are read (1 query) and the automaton is rebuilt
    only if what links show changed (a body edit moves the fingerprint, not the links)."""
    key = (connections[using].vendor, connections[using].settings_dict.get("NAME"))
    fingerprint = _fingerprint(using)
    cached = _cached.get(key)
    if cached is not None and cached[0] == fingerprint:
        return cached[2]
    rows = tuple(
        (pk, slug, name, definition, tuple(link_forms(name, synonyms, unlinked)))
        for pk, slug, name, definition, synonyms, unlinked in Term.objects.db_manager(using)
        .published()
        .filter(linkable=True)
        .order_by("sort_key", "id")
        .values_list("id", "slug", "name", "short_definition", "synonyms", "unlinked_synonyms")
    )
    if cached is not None and cached[1] == rows:
        linker = cached[2]
    else:
        linker = Linker(
            [
                (Target(pk, slug, name, definition), list(forms))
                for pk, slug, name, definition, forms in rows
            ]
        )
    _cached.put(key, (fingerprint, rows, linker))
    return linker


def clear_cache() -> None:
    _cached.clear()


# --- keeping stored links correct as the glossary changes ------------------------------------


@dataclass(frozen=True, slots=True)
class TermState:
    """What of a term its links show: its address, its tooltip and the forms it is found by.
    None stands for "not linkable" (a draft, scheduled, switched off or deleted)."""

    slug: str
    definition: str
    forms: tuple[str, ...]


def state_of(term) -> TermState | None:
    if not (term.is_public and term.linkable):
        return None
    forms = link_forms(term.name, term.synonyms, term.unlinked_synonyms)
    return TermState(term.slug, term.short_definition, tuple(forms))


_STATE_FIELDS = (
    "id", "slug", "name", "synonyms", "short_definition", "linkable", "unlinked_synonyms",
)  # fmt: skip


def states_in_db(ids, *, using: str = DEFAULT_DB_ALIAS) -> dict[int, TermState | None]:
    """The stored link state of the terms `ids` (1 query per 900 ids); unknown ids are absent."""
    ids = sorted(set(ids))
    states: dict[int, TermState | None] = dict.fromkeys(ids)
    manager = Term.objects.db_manager(using)
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        for pk, slug, name, synonyms, definition, linkable, unlinked in (
            manager.published().filter(pk__in=chunk).values_list(*_STATE_FIELDS)
        ):
            if linkable:
                forms = link_forms(name, synonyms, unlinked)
                states[pk] = TermState(slug, definition, tuple(forms))
    return states


_CHUNK = 900
# Stored links are written this many texts at a time: each UPDATE … FROM joins the whole text
# table once, so 900-text statements made a 100,000-term import quadratic.
_STORE_EVERY = 20_000
# Above this many new forms, one LIKE per form costs more than relinking every text.
_GAINED_LIMIT = 200


def texts_affected(
    changes: dict[int, tuple[TermState | None, TermState | None]],
    *,
    using: str = DEFAULT_DB_ALIAS,
) -> tuple[set[int], set[int]]:
    """(term ids, article ids) of the texts whose stored links may change with `changes`
    (term id -> (before, after)): the texts that mention a changed term now (its address,
    tooltip or very existence changed), and the texts that may contain a form it gained, found
    through the stored word stems (`stems_body`, the search columns) without reading bodies."""
    changed = {pk for pk, (before, after) in changes.items() if before != after}
    terms, articles = set(), set()
    if not changed:
        return terms, articles
    ids = sorted(changed)
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        terms.update(
            Term.mentions.through.objects.using(using)
            .filter(to_term_id__in=chunk)
            .values_list("from_term_id", flat=True)
        )
        articles.update(
            Article.mentions.through.objects.using(using)
            .filter(term_id__in=chunk)
            .values_list("article_id", flat=True)
        )
    gained: set[tuple[str, ...]] = set()
    for pk in ids:
        before, after = changes[pk]
        if after is not None:
            old = set(before.forms) if before is not None else set()
            for form in after.forms:
                if form not in old and (parts := words(form)):
                    gained.add(tuple(parts))
    if len(gained) > _GAINED_LIMIT:  # a large import: cheaper to relink every text
        for model, found in ((Term, terms), (Article, articles)):
            found.update(
                model.objects.using(using).filter(autolink=True).values_list("id", flat=True)
            )
    elif gained:
        condition = Q()
        for parts in gained:
            every_word = Q()
            for part in parts:
                any_stem = Q()
                for alternative in query_stems(part):
                    any_stem |= Q(stems_body__contains=f" {alternative} ")
                every_word &= any_stem
            condition |= every_word
        for model, found in ((Term, terms), (Article, articles)):
            found.update(
                model.objects.using(using)
                .filter(condition, autolink=True)
                .values_list("id", flat=True)
            )
    return terms, articles


def relink(
    *,
    terms=(),
    articles=(),
    using: str = DEFAULT_DB_ALIAS,
    linker: Linker | None = None,
) -> list:
    """Link the texts again and store what changed: `linked_html` (a plain UPDATE, so
    `updated_at` stays: nothing an editor wrote changed) and the `mentions` rows. `terms`
    and `articles` hold ids or instances; an instance is updated in memory too, so a caller
    that saves it again keeps the links. Returns the texts whose links changed (ids by
    model), for the caller to announce."""
    linker = linker or current_linker(using=using)
    changed = []
    with _workers(linker, len(terms) + len(articles)) as link_many:
        for model, items in ((Term, terms), (Article, articles)):
            _relink_model(model, items, using, link_many, changed)
    return changed


def _relink_model(model, items, using: str, link_many, changed: list) -> None:
    """`relink` for one model's texts, a chunk at a time."""
    instances = {item.pk: item for item in items if isinstance(item, model)}
    ids = sorted({item.pk if isinstance(item, model) else item for item in items})
    through = model.mentions.through
    source = "from_term_id" if model is Term else "article_id"
    target = "to_term_id" if model is Term else "term_id"
    # The mention rows as they are, read before any chunk adds rows (a large import would
    # otherwise scan a table it keeps growing, with no statistics yet, once per chunk).
    current: dict[int, dict[int, int]] = defaultdict(dict)  # text -> {target: row id}
    for start in range(0, len(ids), _CHUNK):
        for row_id, source_id, target_id in (
            through.objects.using(using)
            .filter(**{f"{source}__in": ids[start : start + _CHUNK]})
            .values_list("id", source, target)
        ):
            current[source_id][target_id] = row_id
    pending: list[tuple[int, str]] = []  # stored in few large statements (`_STORE_EVERY`)
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        loaded = {
            pk: (body_html, linked_html, autolink)
            for pk, body_html, linked_html, autolink in model.objects.using(using)
            .filter(pk__in=chunk)
            .values_list("id", "body_html", "linked_html", "autolink")
        }
        updates, add, remove = pending, [], []
        results = link_many(
            [
                (pk, body_html if autolink else "", pk if model is Term else None)
                for pk, (body_html, _linked, autolink) in loaded.items()
            ]
        )
        for pk, (_body, linked_html, _autolink) in loaded.items():
            result = results[pk]
            wanted = set(result.term_ids)
            have = current[pk]
            if result.html != linked_html:
                updates.append((pk, result.html))
            if wanted != have.keys():
                add += [(pk, t) for t in sorted(wanted - have.keys())]
                remove += [row_id for t, row_id in have.items() if t not in wanted]
            if pk in instances:
                instances[pk].linked_html = result.html
            if result.html != linked_html or wanted != have.keys():
                changed.append((model, pk))
        if len(pending) >= _STORE_EVERY:
            _store_html(model, pending, using)
            pending.clear()
        for at in range(0, len(remove), _CHUNK):
            through.objects.using(using).filter(pk__in=remove[at : at + _CHUNK]).delete()
        if add:
            # Possibly many rows (an import): inserted without a model instance per row.
            fields = (source.removesuffix("_id"), target.removesuffix("_id"))
            bulk.insert_link_rows(through, fields, add)
    _store_html(model, pending, using)


# Below this many texts, starting worker processes costs more than it saves.
_PARALLEL_FROM = 2000
_worker_linker: Linker | None = None


def _link_batch(batch: list[tuple[int, str, int | None]]) -> list[tuple[int, Result]]:
    """Worker side: link texts with the linker inherited at fork time (no database)."""
    return [(pk, _worker_linker.link(html, exclude=exclude)) for pk, html, exclude in batch]


@contextmanager
def _workers(linker: Linker, count: int):
    """A function linking [(pk, body_html, exclude)] -> {pk: Result}: in this process, or for
    large jobs (an import, `relink_texts`) in forked worker processes, one per core — the
    same approach as the import's Markdown rendering (importing._derived_batches): workers
    only compute and never touch the database connection they inherit."""
    global _worker_linker
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    if count < _PARALLEL_FROM or cores < 2 or "fork" not in get_all_start_methods():
        yield lambda rows: {pk: linker.link(html, exclude=ex) for pk, html, ex in rows}
        return
    _worker_linker = linker
    try:
        with ProcessPoolExecutor(min(cores, 8), mp_context=get_context("fork")) as pool:

            def link_many(rows):
                batches = [rows[at : at + 100] for at in range(0, len(rows), 100)]
                return {
                    pk: result for part in pool.map(_link_batch, batches) for pk, result in part
                }

            yield link_many
    finally:
        _worker_linker = None


def _store_html(model, updates: list[tuple[int, str]], using: str) -> None:
    """Write `linked_html` for (id, html) pairs: on PostgreSQL COPY into a temporary table
    and one UPDATE … FROM it (Django's bulk_update writes a CASE with a branch per row; an
    UPDATE over unnested text arrays paid psycopg's Python quoting of every string),
    elsewhere bulk_update."""
    if not updates:
        return
    connection = connections[using]
    if connection.vendor != "postgresql":
        model.objects.using(using).bulk_update(
            [model(pk=pk, linked_html=html) for pk, html in updates], ["linked_html"], 500
        )
        return
    table = connection.ops.quote_name(model._meta.db_table)
    if len(updates) < bulk.COPY_FROM:  # an edit's few texts: one statement
        sql = (
            f"UPDATE {table} AS t SET linked_html = v.html "  # noqa: S608 (a model's table name)
            "FROM unnest(%s::bigint[], %s::text[]) AS v(id, html) WHERE t.id = v.id"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [[pk for pk, _ in updates], [html for _, html in updates]])
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMPORARY TABLE IF NOT EXISTS glossary_linked_html "
            "(id bigint PRIMARY KEY, html text) ON COMMIT DELETE ROWS"
        )
        cursor.execute("TRUNCATE glossary_linked_html")
        with cursor.cursor.copy("COPY glossary_linked_html (id, html) FROM STDIN") as copy:
            for row in updates:
                copy.write_row(row)
        cursor.execute(
            f"UPDATE {table} AS t SET linked_html = v.html "  # noqa: S608 (a model's table name)
            "FROM glossary_linked_html AS v WHERE t.id = v.id"
        )
        cursor.execute("TRUNCATE glossary_linked_html")
