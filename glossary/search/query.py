"""Parsing a query once: folding, question frames, stop words, comparisons, stems, typo keys;
and highlighting the words the engine really matched.

A reader or an agent types questions ("czym jest mcp", "jak działa paginacja", "what is SSE",
"różnica między sse a websocket"). The words that frame a question carry no subject: they are
dropped (in every inflected form, typed without diacritics, with a typo in the longer ones)
so that the rest of the engine sees only the subject's words. A query made only of such words
is kept whole ("co to jest" may be someone's search for that phrase). A comparison ("X vs Y",
"X czy Y", "X a Y", "różnica między X i Y", "difference between X and Y") is split into its
two sides, each ranked on its own, so that both named terms come first.

Everything derived from the text (stems, deletion keys, LIKE patterns) is computed here, once
per query; the database engines only read it.
"""

from __future__ import annotations

import re
from functools import cached_property, lru_cache
from typing import NamedTuple

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from rapidfuzz.distance import OSA

from ..polish import fold
from ..stemming import (
    TYPO_MIN_LENGTH,
    deletion_keys,
    derived_bases,
    english_singulars,
    polish_alternations,
    query_stems,
    stem,
    words,
)
from .ranking import FRAME_WORD_WEIGHT, OTHER_WORD_WEIGHT

MAX_QUERY_LENGTH = 200
MAX_QUERY_WORDS = 8
SHORT_QUERY = 2  # queries this short match name prefixes only
PREFIX_STEM_MIN = 4  # stems this long also match longer name stems ("agent" ~ "agentowy")
TYPED_PREFIX_MIN = 2  # ...and the last of several words from two letters on ("json sch")
GUESS_PREFIX = 4  # "did you mean": a name word beginning with a query word's first letters


# Unicode's control characters (category Cc: U+0000-U+001F and U+007F-U+009F).
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")


def without_controls(text: str) -> str:
    """`text` with each control character made a space (PostgreSQL rejects NUL; a tab or a
    newline separates words): one regex pass instead of a Python test per character."""
    return _CONTROLS.sub(" ", text)


def normalize_query(query: str) -> str:
    """Folded, whitespace-collapsed, bounded query text ("  SŁOWNIK " -> "slownik")."""
    return fold(query if isinstance(query, str) else "")[:MAX_QUERY_LENGTH]


def _forms(*groups: str) -> frozenset[str]:
    return frozenset(fold(w) for group in groups for w in group.split())


# Words that frame a question or carry no subject, folded, every inflected form written out
# (Polish declines pronouns and conjugates verbs: "czym", "czego", "czemu" are one "co").
POLISH_STOP_WORDS = _forms(
    # interrogatives and relatives
    "co czego czemu czym kto kogo komu kim jak jaki jaka jakie jakiego jakiej jakiemu jakim "
    "jakimi jakich jaką który która które którego której któremu którym którymi których "
    "którą dlaczego czemuż po co gdzie kiedy ile ilu skąd dokąd dokad czy czyli",
    # pronouns and determiners
    "to ten ta te tego tej temu tym tymi tych tę tą tamten on ona ono oni one go jego jej ich "
    "mu im nim nią niej nich się sie siebie sobie sobą mnie mi ja ty my wy nas was nam wam "
    "mój moja moje twój twoja swój swoja swoje swojego swoim każdy każda każde wszystko "
    "wszystkie jakiś jakaś jakieś coś cos ktoś",
    # prepositions and conjunctions
    "w we na z ze o od do dla przez pod nad przy po za przed między miedzy pomiędzy u bez "
    "wśród a i oraz lub albo ani ale lecz że iż aby żeby by bo więc jednak też także również "
    "jako niż niz kontra versus vs",
    # "to be", "to have", modal and auxiliary forms
    "jest są jestem jesteś być był była było były byli będzie będą bedzie mieć ma mają mam "
    "można mozna trzeba należy nalezy warto musi muszę chcę chce chcemy",
    # what the question asks for
    "oznacza oznaczają znaczy znaczą znaczenie znaczenia działa działają działanie działania "
    "działać służy służą służyć używa używać użyć używamy stosować stosuje zastosować stosowanie "
    "zastosowanie zastosowania robi robić zrobić zrobi wygląda wyglądają skonfigurować "
    "konfigurować konfiguracja konfiguracji ustawić wdrożyć zaimplementować implementacja "
    "implementować uruchomić włączyć napisać stworzyć utworzyć dodać działał",
    "definicja definicji definicję opis opisu wyjaśnienie wyjaśnij wytłumacz przykład "
    "przykłady przykładem przykładu przykładów czym właściwie właściwie dokładnie chodzi "
    "różnica różnice różnicy różnic różni różnią różnią różnicach porównanie porównania "
    "porównaj porównać lepszy lepsza lepsze wybrać wybór cel celu sens sensu "
    "pojęcie pojęcia termin terminu hasło znaczeniu rozumieć rozumie oznacza",
    # asking, telling, "so-called"
    "proszę prosze powiedz opowiedz wyjaśnić wytłumaczyć podaj napisz pokaż chciałbym "
    "chciałabym wiedzieć dowiedzieć słowo słowa słowem wyraz wyrazu tzw tak zwany zwana zwane "
    "takiego takie taki tak za ok rola rolę roli pełni pełnią zalety wady zaleta wada plusy "
    "minusy cechy rodzaje typy",
    # conditions, negation, particles, abbreviations
    "gdy gdyby jeśli jeżeli kiedyś nie już jeszcze tylko bardzo np itp itd tj m.in",
)
# A chat's greetings, thanks and requests ("hej, potrzebuję krótkiej definicji X", "please
# explain X"): what the asker wants, not what about. Matched as typed only (diacritics
# folded): one edit from them are subject words ("kroki", "dzieli", "prośby", "części").
CHAT_WORDS = _forms(
    "hej hejka cześć witam witaj halo siema dzięki dziękuję dzieki pozdrawiam "
    "potrzebuję potrzebuje potrzebujemy potrzebować potrzebna potrzebny potrzebne "
    "szukam szukamy szukać poszukuję znaleźć znajdę znajdź pomóż pomóżcie pomożesz pomóc "
    "pomocy możesz możecie mógłbyś mogłabyś mógłby mogłaby mogę chciałbyś chcielibyśmy "
    "zrozumieć zrozumienie zrozumienia rozumiem wyjaśnienia wyjaśnień pytanie pytam "
    "interesuje ciekawi temat tematu temacie opisać opisane opisany opisana opisano "
    "budować zbudować buduję budujemy tworzyć trochę więcej dokładniej szczegółowo "
    "krótki krótka krótkie krótkiej krótką krótko krótkiego krótkim prosty prosta proste "
    "prostej prostymi prosto",
    "hey hi hello please pls thanks thank need needs want wants looking search searching "
    "find help understand know learn like im short brief briefly quick quickly simple "
    "simply question describe described some",
)
ENGLISH_STOP_WORDS = _forms(
    "what whats what's is are was were be been being do does did how why when where which who "
    "whom a an the of in on at to for from with by about into and or vs versus than "
    "mean means meaning meant work works working use used using explain explained "
    "explanation definition define difference differences between compare comparison "
    "versus vs better example examples purpose it its this that these those there "
    "can could should would will i we you my our your me tell show give define "
    "s t d ll re ve m",  # "what's", "don't", "I'd", "we'll", "they're", "I've", "I'm"
)
STOP_WORDS = POLISH_STOP_WORDS | ENGLISH_STOP_WORDS | CHAT_WORDS
# What makes a query a request for a concept rather than a statement of what it does or of a
# problem it causes: asking, telling, the words of a chat. In a request the words that name
# concepts say what it is about (`Query.weights`).
REQUEST_CUES = CHAT_WORDS | _forms(
    "wyjaśnij wytłumacz opowiedz podaj napisz pokaż powiedz opisz proszę definicja definicję "
    "definicji znaczenie pojęcie pojęcia termin terminu hasło hasła hasłem chcę chce "
    "chciałbym chciałabym przygotuj dodaj stwórz utwórz zrób streść podsumuj wypisz zredaguj "
    "opisać wyjaśnić wytłumaczyć wyjaśniający wyjaśniającą",
    "explain explaining explanation tell show give describe define definition meaning term "
    "entry glossary write prepare draft summarize summarise add create list paste",
)
# The task around a request ("wyjaśnij użytkownikowi", "w jakich sytuacjach", "for the docs of
# our project"): kept, since a glossary may name such a thing, but weighing a fraction of a
# word that names a concept (ranking.FRAME_WORD_WEIGHT).
SOFT_FRAMES = _forms(
    "sytuacja sytuacji sytuację sytuacje sytuacjach sytuacjami przypadek przypadku przypadki "
    "przypadkach przypadkami użytkownik użytkownika użytkownikowi użytkownikom użytkownicy "
    "użytkowników użytkownikami czytelnik czytelnika czytelnikowi czytelników czytelnikom "
    "zespół zespołu zespołowi zespole dokumentacja dokumentacji dokumentację dokumentacją "
    "projekt projektu projekcie projektach projektów aplikacja aplikacji aplikację aplikacją "
    "aplikacjach aplikacje apka apki apce sposób sposobu sposoby sposobem praktyka praktyce "
    "praktyki szczegóły szczegółach szczegółów prostych prostymi prostym słowach słowami "
    "krok kroki krokach kroków artykuł artykułu artykule notatka notatki notatkę wpis wpisu "
    "kolega koledze koleżance szef szefowi klientowi",
    "user users reader readers team teams docs documentation project projects app apps "
    "application applications situation situations case cases way ways step steps practice "
    "detail details plain words article note notes colleague colleagues boss manager "
    "write writing draft summary summarize prepare answer",
)
# Stop words long enough for a typo in them to be told from another word (one edit or swap):
# Polish ones of five letters or more, English ones of seven ("about" is one edit from
# "abort"), and a swap of two letters in the commonest short Polish frames ("jset", "cyzm").
_TYPO_STOP = tuple(
    sorted(
        {w for w in POLISH_STOP_WORDS if len(w) >= TYPO_MIN_LENGTH}
        | {w for w in ENGLISH_STOP_WORDS if len(w) >= 7}
    )
)
_SWAP_STOP = ("czym", "jaka", "jaki", "jest", "jako")
# The same, by their letters sorted (no two share them): a swap keeps a word's letters.
_SWAP_BY_LETTERS = {"".join(sorted(w)): w for w in _SWAP_STOP}
assert len(_SWAP_BY_LETTERS) == len(_SWAP_STOP)

# A comparison's two sides are split at these words ("sse vs websocket", "sse czy websocket",
# "sse a websocket"); at the weak ones only when the query says it compares
# ("różnica między sse i websocket", "difference between sse and websocket").
STRONG_SEPARATORS = _forms("vs versus kontra czy a or albo lub")
WEAK_SEPARATORS = _forms("i oraz and od z ze with niż niz")
COMPARISON_CUES = _forms(
    "różnica różnice różnicy różnic różni różnią różnicą porównanie porównania porównaj "
    "porównać porównując porównaniu lepszy lepsza lepsze wybrać difference differences "
    "compare compared comparison versus vs kontra"
)


_TYPO_STOP_KEYS = frozenset(k for w in _TYPO_STOP for k in deletion_keys(w))


@lru_cache(maxsize=65_536)
def _keys(folded: str) -> tuple[str, ...]:
    """One-deletion keys of a folded word, once per process (the stop-word test and the
    word's typo keys both need them)."""
    return tuple(deletion_keys(folded))


@lru_cache(maxsize=65_536)
def is_stop_word(folded: str) -> bool:
    """`folded` frames a question: any inflected form, without diacritics, or one typo away
    (see `_TYPO_STOP`: sharing a one-deletion key is one edit or one swap)."""
    if folded in STOP_WORDS:
        return True
    if len(folded) >= TYPO_MIN_LENGTH:
        return not _TYPO_STOP_KEYS.isdisjoint(_keys(folded))
    if len(folded) == 4:
        frame = _SWAP_BY_LETTERS.get("".join(sorted(folded)))
        return frame is not None and OSA.distance(folded, frame, score_cutoff=1) <= 1
    return False


# The verbs that follow a question's opening word ("czym jest", "co to", "czym są").
_FRAME_VERBS = _forms("jest są to")


def _frame_typo(first: str, second: str) -> bool:
    """A query's four-letter first word one edit from a short frame ("czyn jest kursor",
    "czum są sesje"): followed by the frame's verb, a substitution is a typo too (alone, a
    four-letter word one substitution from "jaki" or "czym" may be a subject)."""
    return (
        len(first) == 4
        and second in _FRAME_VERBS
        and any(OSA.distance(first, w, score_cutoff=1) <= 1 for w in _SWAP_STOP)
    )


def _tsquery(
    stems: tuple[str, ...], weights: str, prefix: bool, shortest: int, exact=frozenset()
) -> str:
    """`to_tsquery('simple', …)` text for one word: any of its stems ('agent':* | …), each
    of at least `shortest` letters also as a prefix when `prefix` (it suits names; in long
    text it would expand to too many lexemes), except those in `exact` (a derivation's base
    names the same thing as the word: "tokenik" -> 'token', not every word starting so)."""
    lexemes = []
    for s in stems:
        label = ("*" if prefix and len(s) >= shortest and s not in exact else "") + weights
        lexemes.append(f"'{s}':{label}" if label else f"'{s}'")
    return "(" + " | ".join(lexemes) + ")"


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


class Word(NamedTuple):
    """A word as typed (lower-cased, diacritics kept) with all the engine derives from it
    alone: folded, whether it frames a question (`is_stop_word`), splits or announces a
    comparison, its stems and typo keys. Analysed once per word per process (`_analysis`): a
    query never seen before is mostly made of words seen before, and one lookup a word
    replaces one per derived value (docs/benchmarks.md, "How the query stays fast")."""

    text: str
    folded: str
    stop: bool
    strong: bool
    weak: bool
    cue: bool
    stems: tuple[str, ...]
    bases: tuple[str, ...]  # the stems of `stems` that a derivation's base adds: exact only
    keys: tuple[str, ...]  # one-deletion typo keys
    keys_text: str
    weight: float  # of its idf when no candidate names it (`Query.weights`)


# Polish writes the v of a borrowed word as w ("server" -> "serwer", "provider" ->
# "prowider"): an English query word also matches the Polish spelling of the same word.
_POLISH_SPELLING = str.maketrans({"v": "w"})


def polish_spellings(text: str) -> list[str]:
    """Stems of the Polish spelling of an English (plain ASCII) query word, if it differs."""
    if not text.isascii() or "v" not in text:
        return []
    return query_stems(text.translate(_POLISH_SPELLING))


@lru_cache(maxsize=65_536)
def _analysis(text: str) -> tuple:
    """`Word`'s fields for `text`, as a plain tuple. Why plain: the cyclic garbage collector
    walks every object of a class (a named tuple included) on each full collection, and
    leaves plain tuples of strings alone; tens of thousands of kept `Word` objects (a
    process that has met that many distinct words) make each full collection a long pause
    with the GIL held, in the middle of whatever requests are running (docs/benchmarks.md,
    "REST lists: the garbage collector")."""
    folded = fold(text)
    # Its stems: `query_stems`, an English plural's singular, a Polish alternation's base.
    stems = {*query_stems(text), *english_singulars(text), *polish_alternations(text)}
    stems.update(polish_spellings(text))
    bases = [b for b in derived_bases(text) if b not in stems]
    keys = _keys(folded)
    return tuple(
        Word(
            text=text,
            folded=folded,
            stop=is_stop_word(folded),
            strong=folded in STRONG_SEPARATORS,
            weak=folded in WEAK_SEPARATORS,
            cue=folded in COMPARISON_CUES,
            stems=tuple(sorted(stems)) + tuple(sorted(set(bases))),
            bases=tuple(sorted(set(bases))),
            keys=keys,
            keys_text=" ".join(keys),
            weight=FRAME_WORD_WEIGHT if folded in SOFT_FRAMES else 1.0,
        )
    )


_word = Word._make


def word(text: str) -> Word:
    """`text`'s `Word` (one short-lived record per query over the kept analysis)."""
    return _word(_analysis(text))


class Segment:
    """One side of a query: its words (lower-case, diacritics as typed) and folded key."""

    def __init__(self, records: list[Word]):
        self.records = records
        self.words = [w.text for w in records]
        self.key = " ".join([w.folded for w in records])

    @cached_property
    def prefix_like(self) -> str:
        return _like_escape(self.key) + "%"

    @cached_property
    def synonym_like(self) -> str:
        return "%| " + _like_escape(self.key) + "%"


class Query:
    """One parsed query. `words` are its subject words (frames and stop words removed),
    `segments` one or (for a comparison) two groups of them; per word, the stems that
    satisfy it (`alternatives`) and its one-deletion typo keys."""

    def __init__(self, text):
        text = text if isinstance(text, str) else ""
        self.folded = normalize_query(text)
        raw = [word(w) for w in words(text[: MAX_QUERY_LENGTH * 2])]
        self.full_key = " ".join([w.folded for w in raw[: MAX_QUERY_WORDS * 2]])
        self.segments = self._segments(raw)
        # The subject words' records (`Word`), in order.
        self.records = [w for s in self.segments for w in s.records][:MAX_QUERY_WORDS]
        self.words = [w.text for w in self.records]
        self.key = " ".join([w.folded for w in self.records])
        self.short = len(self.folded) <= SHORT_QUERY or (len(self.key) <= SHORT_QUERY)
        self.request = any(w.folded in REQUEST_CUES for w in raw)
        self.fuzzy = any(w.keys for w in self.records)
        self.comparison = len(self.segments) > 1

    @cached_property
    def alternatives(self) -> list[list[str]]:
        return [list(w.stems) for w in self.records]

    @cached_property
    def weights(self) -> list[float]:
        """Per subject word, the share of its idf it weighs when no candidate has it in its
        names: a request frame's words little (SOFT_FRAMES); in a request (REQUEST_CUES) the
        other words half (ranking.OTHER_WORD_WEIGHT), since the words that name concepts say
        what it asks about; in a statement (a description, a symptom) all alike."""
        if not self.request:
            return [w.weight for w in self.records]
        return [min(w.weight, OTHER_WORD_WEIGHT) for w in self.records]

    @cached_property
    def guess_patterns(self) -> list[str]:
        """`LIKE` patterns of a name word beginning like a subject word of GUESS_PREFIX
        letters or more: its first GUESS_PREFIX letters after a space (the names field is
        "| serwer mcp | … |"), for the last resort of "did you mean"."""
        found = dict.fromkeys(
            f"% {_like_escape(w.folded[:GUESS_PREFIX])}%"
            for w in self.records
            if len(w.folded) >= GUESS_PREFIX
        )
        return list(found)

    @cached_property
    def typo_keys(self) -> list[list[str]]:
        return [list(w.keys) for w in self.records]

    @staticmethod
    def _segments(raw: list[Word]) -> list[Segment]:
        cue = any(w.cue for w in raw)
        content = [not w.stop for w in raw]
        if len(raw) > 2 and content[0] and _frame_typo(raw[0].folded, raw[1].folded):
            content[0] = False
        if not any(content):
            return [Segment(raw[:MAX_QUERY_WORDS])] if raw else []
        for i, w in enumerate(raw):
            if w.strong or (cue and w.weak):
                left = [x for x, c in zip(raw[:i], content[:i], strict=True) if c]
                right = [x for x, c in zip(raw[i + 1 :], content[i + 1 :], strict=True) if c]
                if left and right:
                    half = MAX_QUERY_WORDS // 2
                    return [Segment(left[:half]), Segment(right[:half])]
        return [Segment([x for x, c in zip(raw, content, strict=True) if c][:MAX_QUERY_WORDS])]

    @property
    def short_text(self) -> str:
        """What a short query matches name prefixes with: the text as typed ("s%" keeps its
        "%" as a character), or the subject of a question ("co to jest ws")."""
        return self.folded if len(self.folded) <= SHORT_QUERY else self.key

    def __bool__(self) -> bool:
        return bool(self.folded and self.words)

    @cached_property
    def exact_texts(self) -> list[str]:
        """Folded texts a name or synonym may equal: the whole query (punctuation dropped)
        and its subject, per side for a comparison."""
        out = dict.fromkeys([self.full_key, self.folded, self.key, *(s.key for s in self.segments)])
        return [t for t in out if t]

    def word_segment(self, index: int) -> int:
        """0-based side of the comparison that word `index` belongs to."""
        seen = 0
        for n, segment in enumerate(self.segments):
            seen += len(segment.words)
            if index < seen:
                return n
        return len(self.segments) - 1

    # --- tsquery texts (PostgreSQL) ---

    def prefix_min(self, index: int) -> int:
        """How long a stem must be to match longer ones: the last word of several may be
        still being typed ("json sch"), so two letters do there."""
        last = len(self.words) > 1 and index == len(self.words) - 1
        return TYPED_PREFIX_MIN if last else PREFIX_STEM_MIN

    # --- Python matching (SQLite, highlighting) ---

    def word_matches(self, index: int, stems: str, *, prefix: bool = True) -> bool:
        """Whether word `index` occurs in a space-padded stem column."""
        shortest = self.prefix_min(index)
        exact = self.records[index].bases
        for s in self.alternatives[index]:
            if f" {s} " in stems:
                return True
            if prefix and len(s) >= shortest and s not in exact and f" {s}" in stems:
                return True
        return False

    @cached_property
    def _wanted(self) -> tuple[set[str], set[str]]:
        stems = {s for alternatives in self.alternatives for s in alternatives}
        keys = {k for group in self.typo_keys for k in group}
        return stems, keys

    def marks(self, word: str) -> bool:
        """Whether a word of some text is one the engine matched: the same stem, a longer
        form of a query stem of four letters or more, or (for words of five letters or
        more) one edit or swap away, the engine's own typo tolerance."""
        stems, keys = self._wanted
        lower = word.casefold()
        s = stem(lower)
        if s in stems or any(len(w) >= PREFIX_STEM_MIN and s.startswith(w) for w in stems):
            return True
        return (
            bool(keys)
            and len(lower) >= TYPO_MIN_LENGTH
            and not keys.isdisjoint(deletion_keys(fold(lower)))
        )


_TOKEN = re.compile(r"[^\W_]+")


def highlight(text: str, query: Query | str) -> SafeString:
    """`text` escaped, with the words the query matched wrapped in <mark>. Safe to render."""
    q = query if isinstance(query, Query) else Query(query)
    out, last = [], 0
    for m in _TOKEN.finditer(text):
        if q.marks(m.group()):
            out.append(escape(text[last : m.start()]))
            out.append(f"<mark>{escape(m.group())}</mark>")
            last = m.end()
    out.append(escape(text[last:]))
    return mark_safe("".join(out))  # noqa: S308 - every piece above is escaped
