"""Auto-linking: the first mention of a published term inside a text becomes a link to it.

How a text is matched: its stored, sanitized HTML (`body_html`) is split into tags and text;
every word outside excluded elements (links, code, pre, kbd, samp, headings, and anything
marked `bez-linkow`) is stemmed with the search engine's own Polish stemmer
(`glossary.stemming.stem`, folded, so "serwera", "Serwerów" and "serwerem" are one word),
and the sequence of stem ids goes through one Aho-Corasick automaton (pyahocorasick, integer
keys) holding every name and synonym of every published, linkable term. Of the matches the
leftmost longest wins ("serwer MCP" before "serwer"); a term is linked once per text, at its
first linkable mention, never to itself. A match never crosses an element, a sentence mark
or a comma, never takes half of a hyphenated compound ("JSON" inside "JSON-RPC"), and keeps
a hyphenated Polish ending with the word ("MCP-a"). A name written in capitals (an acronym:
"SSE", "MCP") or of one or two letters matches only the same letters in the same case.

The result is stored (`linked_html`, and the mentioned terms in `mentions`), so page views
pay nothing; `glossary.services` relinks exactly the texts a term change concerns
(`relink_after_term_changes`), and `manage.py relink_texts` relinks everything.

The link is a plain `<a href>` with the definition in `title` (what readers without
JavaScript get); `static/js/tooltips.js` turns it into a WAI-ARIA tooltip.
"""

from __future__ import annotations

import itertools
import re
import threading
from dataclasses import dataclass

import ahocorasick
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Count, Max, Q, Sum
from django.urls import reverse
from django.utils.html import escape

from .markdown import NO_LINK_CLASS
from .stemming import query_stems, stem, words

LINK_CLASS = "term-link"
# Elements whose text is never linked; `bez-linkow` marks an editor's own exclusions.
EXCLUDED_TAGS = frozenset(
    {"a", "code", "pre", "kbd", "samp", "h1", "h2", "h3", "h4", "h5", "h6", "script", "style"}
)
VOID_TAGS = frozenset({"br", "hr", "img", "wbr"})
# nh3 (html5ever) always double-quotes attributes but leaves ">" raw inside them.
_TAG = re.compile(r'<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:"[^"]*"|[^>"])*)>')
_WORD_OR_ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);|[^\W_]+")
_CLASS_ATTR = re.compile(r'\bclass="([^"]*)"')
# What may stand between two words of one name: spaces, or one joining mark ("JSON-RPC",
# "text/event-stream", "HTTP/1.1", "2.0").
_JOINABLE_GAP = re.compile(r"(?:\s|&nbsp;)+|[-/.:@+]")
_HYPHEN = "-"
# A Polish ending written after an acronym ("MCP-a", "JSON-em", "API-ach").
_ENDING = re.compile(r"[a-ząćęłńóśźż]{1,3}")
# Alternatives per name word from `query_stems`, multiplied out; more is never useful.
_MAX_VARIANTS = 8

BARRIER = 0


@dataclass(frozen=True, slots=True)
class Target:
    """A term texts may link to, as the link shows it."""

    id: int
    slug: str
    name: str
    definition: str

    @property
    def url(self) -> str:
        return reverse("glossary:term", kwargs={"slug": self.slug})


@dataclass(frozen=True, slots=True)
class Result:
    html: str  # "" when nothing was linked (pages then show `body_html`)
    term_ids: tuple[int, ...]  # linked terms, in order of appearance


@dataclass(slots=True)
class _Pattern:
    target: int  # index into Linker.targets
    length: int
    exact: str | None  # the exact surface (case kept) an acronym or short name needs
    own_name: bool  # the term's name, not a synonym: wins a shared pattern


def _is_acronym(name: str) -> bool:
    letters = [ch for ch in name if ch.isalpha()]
    return bool(letters) and all(ch.isupper() for ch in letters) and len(name) <= 6


class Linker:
    """One automaton over the names and synonyms of `terms`; `link()` is thread-safe."""

    def __init__(self, terms: list[tuple[Target, list[str]]]) -> None:
        self.targets: list[Target] = []
        self.vocabulary: dict[str, int] = {}
        patterns: dict[tuple[int, ...], _Pattern] = {}
        for target, names in terms:
            index = len(self.targets)
            self.targets.append(target)
            for position, name in enumerate(names):
                for key, exact in self._keys(name):
                    pattern = _Pattern(index, len(key), exact, position == 0)
                    held = patterns.get(key)
                    # Two terms sharing a form: a term's own name beats another's synonym,
                    # otherwise the first (Polish alphabetical order) keeps it.
                    if held is None or (pattern.own_name and not held.own_name):
                        patterns[key] = pattern
        self.automaton = ahocorasick.Automaton(ahocorasick.STORE_ANY, ahocorasick.KEY_SEQUENCE)
        for key, pattern in patterns.items():
            self.automaton.add_word(key, pattern)
        self.patterns = len(patterns)
        if patterns:
            self.automaton.make_automaton()

    def _keys(self, name: str):
        parts = words(name)
        if not parts:
            return
        exact = None
        if len(parts) == 1 and (_is_acronym(name) or len(parts[0]) <= 2):
            exact = re.sub(r"[\W_]+", "", name)
        alternatives = [query_stems(part) for part in parts]
        for variant in itertools.islice(itertools.product(*alternatives), _MAX_VARIANTS):
            key = tuple(self._id(s) for s in variant)
            yield key, exact

    def _id(self, stem_: str) -> int:
        found = self.vocabulary.get(stem_)
        if found is None:
            found = self.vocabulary[stem_] = len(self.vocabulary) + 1
        return found

    def link(self, html: str, *, exclude: int | None = None) -> Result:
        """`html` with the first linkable mention of each term wrapped in a link; `exclude`
        is the id of the text's own term (never linked to itself)."""
        if not html or not self.patterns:
            return Result("", ())
        words_, sequence = self._scan(html)
        if not words_:
            return Result("", ())
        chosen = self._choose(words_, sequence, exclude)
        if not chosen:
            return Result("", ())
        out, at, linked = [], 0, []
        for first, last, target in chosen:
            start, end = words_[first].start, words_[last].end
            out.append(html[at:start])
            out.append(self._anchor(target, html[start:end]))
            at = end
            linked.append(target.id)
        out.append(html[at:])
        return Result("".join(out), tuple(linked))

    # --- scanning -------------------------------------------------------------------------

    def _scan(self, html: str):
        """Words of the linkable text (offsets into `html`) and their stem ids, with
        BARRIER where a match may not continue."""
        found: list[_Word] = []
        sequence: list[int] = []
        stack: list[bool] = []  # per open element: is linking off inside it
        excluded = 0
        at = 0
        for tag in _TAG.finditer(html):
            if tag.start() > at and not excluded:
                self._scan_text(html, at, tag.start(), found, sequence)
            at = tag.end()
            closing, name = tag.group(1), tag.group(2).lower()
            if name in VOID_TAGS or tag.group(3).rstrip().endswith("/"):
                sequence.append(BARRIER)
                continue
            if closing:
                if stack:
                    excluded -= stack.pop()
            else:
                off = name in EXCLUDED_TAGS or _has_no_link_class(tag.group(3))
                stack.append(off)
                excluded += off
            sequence.append(BARRIER)
        if at < len(html) and not excluded:
            self._scan_text(html, at, len(html), found, sequence)
        return found, sequence

    def _scan_text(self, html, start, end, found, sequence) -> None:
        previous_end = None
        for match in _WORD_OR_ENTITY.finditer(html, start, end):
            text = match.group()
            if text.startswith("&"):
                if text != "&nbsp;":
                    sequence.append(BARRIER)
                    previous_end = None
                continue
            gap = html[previous_end : match.start()] if previous_end is not None else None
            if gap is not None and not _JOINABLE_GAP.fullmatch(gap):
                sequence.append(BARRIER)
                gap = None
            word = _Word(match.start(), match.end(), text, len(sequence), gap == _HYPHEN, False)
            if found and gap == _HYPHEN and found[-1].end == previous_end:
                found[-1].hyphen_after = True
            found.append(word)
            sequence.append(self.vocabulary.get(stem(text.casefold()), BARRIER))
            previous_end = match.end()
        sequence.append(BARRIER)

    def _choose(self, words_, sequence, exclude):
        by_slot = {word.slot: index for index, word in enumerate(words_)}
        candidates = []
        for end_slot, pattern in self.automaton.iter(tuple(sequence)):
            first = by_slot[end_slot - pattern.length + 1]
            candidates.append((first, first + pattern.length - 1, pattern))
        candidates.sort(key=lambda c: (c[0], -c[2].length))
        chosen, done, free_from = [], set(), 0
        for first, last, pattern in candidates:
            if first < free_from:
                continue
            if pattern.exact is not None and words_[first].text != pattern.exact:
                continue
            if words_[first].hyphen_before:
                continue  # the tail of a compound: "RPC" in "JSON-RPC"
            if words_[last].hyphen_after:
                following = words_[last + 1] if last + 1 < len(words_) else None
                if (
                    following is None
                    or following.hyphen_after
                    or not _ENDING.fullmatch(following.text)
                ):
                    continue  # the head of a compound: "JSON" in "JSON-RPC"
                last += 1  # "MCP-a": the ending goes with the word
            free_from = last + 1
            target = self.targets[pattern.target]
            if target.id == exclude or target.id in done:
                continue  # consumed, not linked: no shorter term inside a repeated name
            done.add(target.id)
            chosen.append((first, last, target))
        return chosen

    @staticmethod
    def _anchor(target: Target, inner: str) -> str:
        return (
            f'<a href="{escape(target.url)}" class="{LINK_CLASS}" '
            f'data-term="{escape(target.slug)}" title="{escape(target.definition)}">{inner}</a>'
        )


@dataclass(slots=True)
class _Word:
    start: int
    end: int
    text: str
    slot: int
    hyphen_before: bool
    hyphen_after: bool


def _has_no_link_class(attributes: str) -> bool:
    match = _CLASS_ATTR.search(attributes)
    return bool(match) and NO_LINK_CLASS in match.group(1).split()


# --- the published glossary as a linker, cached per process --------------------------------


def link_forms(name: str, synonyms: list[str]) -> list[str]:
    """The forms a term is linked by: its name first, then its synonyms."""
    return [name, *synonyms]


def _fingerprint(using: str):
    """What the linker depends on, in one aggregate query: any publish, unpublish, rename,
    synonym or definition edit, linkable switch or deletion changes one of these."""
    from .models import Term

    row = (
        Term.objects.db_manager(using)
        .published()
        .filter(linkable=True)
        .aggregate(n=Count("id"), changed=Max("updated_at"), ids=Sum("id"))
    )
    return (row["n"], row["changed"], row["ids"])


_cache_lock = threading.Lock()
_cached: dict[str, tuple[object, Linker]] = {}


def current_linker(*, using: str = DEFAULT_DB_ALIAS) -> Linker:
    """The linker for the glossary as published now (1 query when nothing changed; built
    from the published, linkable terms when something did)."""
    from .models import Term

    key = (connections[using].vendor, connections[using].settings_dict.get("NAME"))
    fingerprint = _fingerprint(using)
    with _cache_lock:
        cached = _cached.get(key)
    if cached is not None and cached[0] == fingerprint:
        return cached[1]
    rows = (
        Term.objects.db_manager(using)
        .published()
        .filter(linkable=True)
        .order_by("sort_key", "id")
        .values_list("id", "slug", "name", "short_definition", "synonyms")
    )
    linker = Linker(
        [
            (Target(pk, slug, name, definition), link_forms(name, synonyms))
            for pk, slug, name, definition, synonyms in rows
        ]
    )
    with _cache_lock:
        _cached[key] = (fingerprint, linker)
    return linker


def clear_cache() -> None:
    with _cache_lock:
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
    return TermState(term.slug, term.short_definition, tuple(link_forms(term.name, term.synonyms)))


_STATE_FIELDS = ("id", "slug", "name", "synonyms", "short_definition", "linkable")


def states_in_db(ids, *, using: str = DEFAULT_DB_ALIAS) -> dict[int, TermState | None]:
    """The stored link state of the terms `ids` (1 query per 900 ids); unknown ids are absent."""
    from .models import Term

    ids = sorted(set(ids))
    states: dict[int, TermState | None] = dict.fromkeys(ids)
    manager = Term.objects.db_manager(using)
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        for pk, slug, name, synonyms, definition, linkable in (
            manager.published().filter(pk__in=chunk).values_list(*_STATE_FIELDS)
        ):
            if linkable:
                states[pk] = TermState(slug, definition, tuple(link_forms(name, synonyms)))
    return states


_CHUNK = 900


def texts_affected(
    changes: dict[int, tuple[TermState | None, TermState | None]],
    *,
    using: str = DEFAULT_DB_ALIAS,
) -> tuple[set[int], set[int]]:
    """(term ids, article ids) of the texts whose stored links may change with `changes`
    (term id -> (before, after)): the texts that mention a changed term now (its address,
    tooltip or very existence changed), and the texts that may contain a form it gained, found
    through the stored word stems (`stems_body`, the search columns) without reading bodies."""
    from .models import Article, Term

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
    if gained:
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
    from .models import Article, Term

    linker = linker or current_linker(using=using)
    changed = []
    for model, items in ((Term, terms), (Article, articles)):
        instances = {item.pk: item for item in items if isinstance(item, model)}
        ids = sorted({item.pk if isinstance(item, model) else item for item in items})
        through = model.mentions.through
        source = "from_term_id" if model is Term else "article_id"
        target = "to_term_id" if model is Term else "term_id"
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            loaded = {
                pk: (body_html, linked_html, autolink)
                for pk, body_html, linked_html, autolink in model.objects.using(using)
                .filter(pk__in=chunk)
                .values_list("id", "body_html", "linked_html", "autolink")
            }
            current: dict[int, set[int]] = {pk: set() for pk in loaded}
            for source_id, target_id in (
                through.objects.using(using)
                .filter(**{f"{source}__in": chunk})
                .values_list(source, target)
            ):
                current[source_id].add(target_id)
            updates, add, remove = [], [], []
            for pk, (body_html, linked_html, autolink) in loaded.items():
                if autolink:
                    result = linker.link(body_html, exclude=pk if model is Term else None)
                else:
                    result = Result("", ())
                wanted = set(result.term_ids)
                if result.html != linked_html:
                    updates.append(model(pk=pk, linked_html=result.html))
                if wanted != current[pk]:
                    add += [(pk, t) for t in sorted(wanted - current[pk])]
                    remove += [(pk, t) for t in current[pk] - wanted]
                if pk in instances:
                    instances[pk].linked_html = result.html
                if result.html != linked_html or wanted != current[pk]:
                    changed.append((model, pk))
            if updates:
                model.objects.using(using).bulk_update(updates, ["linked_html"], batch_size=500)
            if remove:
                condition = _pairs(source, target, remove)
                through.objects.using(using).filter(condition).delete()
            if add:
                through.objects.using(using).bulk_create(
                    [through(**{source: s, target: t}) for s, t in add], batch_size=1000
                )
    return changed


def _pairs(source: str, target: str, pairs) -> Q:
    by_source: dict[int, list[int]] = {}
    for s, t in pairs:
        by_source.setdefault(s, []).append(t)
    condition = Q()
    for s, targets in by_source.items():
        condition |= Q(**{source: s, f"{target}__in": targets})
    return condition
