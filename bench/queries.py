"""Realistic search queries drawn from a glossary, for the benchmarks: what readers and agents
type, in kinds, deterministic per seed, and (for `distinct`) never the same text twice.

    from bench.queries import KINDS, distinct, mix
    queries = distinct(rows, count=40_000, seed=1)   # [(kind, query, expected slug or "")]

`rows` are (name, slug, short_definition, synonyms) of published terms. The kinds:
- today's: exact names (typed four ways), name prefixes, single name words, words without
  diacritics, one-letter typos (swap, drop, replace), inflected words, two-word combinations
  (name words reversed, or a definition word plus a name word), no-hit words;
- questions: Polish and English frames around a name ("czym jest X", "co to jest X", "jak
  działa X", "do czego służy X", "dlaczego X", "what is X", "how does X work"), typed with or
  without diacritics;
- comparisons of two names ("różnica między X a Y", "X czy Y", "X vs Y", "difference between
  X and Y");
- descriptions: three to five words of a term's short definition, without its name.

A question or comparison's expected slug is the (first) term it names; other kinds are
checked for "something found" only, since a prefix or a word may rightly rank another term.
"""

from __future__ import annotations

import random

from glossary.polish import fold

KINDS = (
    "exact", "prefix", "word", "ascii", "typo", "inflected", "multi-word", "no-hit",
    "question", "comparison", "description",
)  # fmt: skip
QUESTION_KINDS = ("question", "comparison", "description")

PL_QUESTIONS = (
    "czym jest {x}", "co to jest {x}", "co to {x}", "co oznacza {x}", "co znaczy {x}",
    "jak działa {x}", "jak używać {x}", "do czego służy {x}", "po co jest {x}",
    "dlaczego {x}", "{x} co to jest", "czym się różni {x}", "{x} – definicja",
    "jak skonfigurować {x}", "kiedy stosować {x}", "czym właściwie jest {x}?",
)  # fmt: skip
EN_QUESTIONS = (
    "what is {x}", "what is a {x}", "how does {x} work", "why {x}", "how to use {x}",
    "what does {x} mean", "{x} explained",
)  # fmt: skip
COMPARISONS = (
    "różnica między {x} a {y}", "{x} czy {y}", "{x} vs {y}", "{x} a {y}",
    "{x} versus {y}", "czym się różni {x} od {y}", "difference between {x} and {y}",
    "{x} or {y}", "porównanie {x} i {y}",
)  # fmt: skip


def _typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 1)
    kind = rng.choice(("swap", "drop", "replace"))
    if kind == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "drop":
        return word[:i] + word[i + 1 :]
    return word[:i] + rng.choice("aeiouyklmnprstz") + word[i + 1 :]


def _inflect(word: str, rng: random.Random) -> str:
    try:
        from bench.synthetic import inflect
    except ImportError:  # pragma: no cover - run from elsewhere
        return word
    return inflect(word, rng)


def _name_words(name: str) -> list[str]:
    return [w for w in name.split() if not w.isdigit()]


def one(kind: str, row, other, rng: random.Random) -> tuple[str, str] | None:
    """One query of `kind` built from `row` (and `other`, for comparisons), with the slug it
    should find first ("" when any hit will do), or None when the row does not suit."""
    name, slug, definition, _synonyms = row
    words = _name_words(name)
    long_words = [w for w in words if len(w) >= 6]
    if not words:
        return None
    if kind == "exact":
        style = rng.choice((lambda s: s, str.lower, fold, str.upper))
        return style(name), ""
    if kind == "prefix":
        return name[: rng.randint(1, 6)], ""
    if kind == "word":
        return rng.choice(words).lower(), ""
    if kind == "ascii":
        return fold(rng.choice(words)), ""
    if kind == "typo":
        return (_typo(rng.choice(long_words).lower(), rng), "") if long_words else None
    if kind == "inflected":
        return _inflect(words[0].lower(), rng), ""
    if kind == "multi-word":
        if rng.random() < 0.5 and len(words) > 1:
            return " ".join(words[::-1]).lower(), ""
        extra = rng.choice(definition.split()).strip(".,").lower()
        return f"{extra} {words[0].lower()}", ""
    if kind == "no-hit":
        return "".join(rng.choice("qvxwz") + rng.choice("aeiou") for _ in range(4)), ""
    if kind == "question":
        frame = rng.choice(PL_QUESTIONS if rng.random() < 0.7 else EN_QUESTIONS)
        text = frame.format(x=name if rng.random() < 0.6 else name.lower())
        return (fold(text) if rng.random() < 0.3 else text), slug
    if kind == "comparison":
        if other is None:
            return None
        frame = rng.choice(COMPARISONS)
        text = frame.format(x=name, y=other[0])
        return (fold(text) if rng.random() < 0.3 else text.lower()), slug
    if kind == "description":
        parts = [w.strip(".,;:") for w in definition.split()]
        parts = [w for w in parts if len(w) > 3]
        if len(parts) < 3:
            return None
        start = rng.randrange(0, max(1, len(parts) - 3))
        return " ".join(parts[start : start + rng.randint(3, 5)]).lower(), slug
    raise ValueError(kind)


def distinct(rows: list, *, count: int, seed: int, kinds=KINDS) -> list[tuple[str, str, str]]:
    """`count` (kind, query, expected slug) with no query text repeated, kinds in turn."""
    rng = random.Random(f"distinct:{seed}")
    seen: set[str] = set()
    out: list[tuple[str, str, str]] = []
    misses = 0
    while len(out) < count:
        kind = kinds[len(out) % len(kinds)]
        made = one(kind, rng.choice(rows), rng.choice(rows), rng)
        if made is None or not made[0].strip() or made[0].casefold() in seen:
            misses += 1
            if misses > 50 * count:
                raise RuntimeError(f"cannot draw {count} distinct queries from {len(rows)} rows")
            continue
        seen.add(made[0].casefold())
        out.append((kind, *made))
    return out


def mix(rows: list, *, per_kind: dict[str, int], seed: int) -> list[tuple[str, str, str]]:
    """A fixed number of queries per kind (repeats allowed across kinds), for latency mixes."""
    rng = random.Random(f"mix:{seed}")
    out = []
    for kind, n in per_kind.items():
        made = 0
        while made < n:
            q = one(kind, rng.choice(rows), rng.choice(rows), rng)
            if q is not None:
                out.append((kind, *q))
                made += 1
    return out
