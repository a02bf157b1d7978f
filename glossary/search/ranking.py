"""The ranking, written once: tiers best first, each with its SQL condition (PostgreSQL) and
its Python test (SQLite), and the field weights of the coverage score.

A tier's number is its position in `TIERS`; the SQL `CASE` is generated from this list and the
SQLite path walks the same list, so the two cannot drift. Within the exact tiers ties go to
the closer name; in the coverage tier to the higher score:

    score = sum(weight(w) * FIELD_WEIGHTS[level(w)]) / sum(weight(w))   over the words of a side
    weight(w) = idf(w) * (1 if some candidate has w in its names else the word's own weight)

with `level` the best field the word occurs in (names, short definition, body) and a BM25
idf, `ln(1 + (N - df + 0.5) / (df + 0.5))`, so a rare word weighs more than a common one and
an entry covering more of the query ranks higher. A word found nowhere lowers every score
alike and so changes no order.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

# Levels of one query word in one entry (best field), and what each is worth.
NAMES, DEFINITION, BODY, ABSENT = 3, 2, 1, 0
FIELD_WEIGHTS = {NAMES: 1.0, DEFINITION: 0.6, BODY: 0.3, ABSENT: 0.0}
# What a query word weighs, as a share of its idf, when no candidate has it in its names: the
# words of a request that name concepts say what it is about; the others (the task around
# it, a description's wording) count less, and a request frame's words ("użytkownik",
# "sytuacjach", "docs": query.SOFT_FRAMES) least.
OTHER_WORD_WEIGHT = 0.5
FRAME_WORD_WEIGHT = 0.15
# A coverage match is a guess ("weak") below this share of the query's weight: the words it
# has say too little of what the query asks (the semantic arm, when on, is consulted then).
CONFIDENT_COVERAGE = 0.6


@dataclass(frozen=True)
class Tier:
    label: str
    # SQL condition for one side of the query; the placeholders name per-side fragments the
    # engine provides ({exact}, {prefix}, {names}, {fuzzy}, {score}).
    sql: str
    # The same condition in Python over a `Features` row for one side.
    test: Callable[[Features, int], bool]


@dataclass
class Features:
    """What the SQLite path knows of one candidate (the PostgreSQL path computes the same in
    SQL): per query word its level and whether a name word is within typo distance."""

    exact: list[bool]  # per side: the name equals the side's text
    synonym: list[bool]  # per side: a synonym equals it
    prefix: list[bool]  # per side: the name or a synonym starts with it
    levels: list[int]  # per query word
    typo: list[bool]  # per query word
    sides: list[list[int]]  # word indexes of each side
    scores: list[float]  # per side, coverage score

    def all_words(self, side: int, ok: Callable[[int], bool]) -> bool:
        return bool(self.sides[side]) and all(ok(i) for i in self.sides[side])


TIERS: tuple[Tier, ...] = (
    Tier("name", "{exact}", lambda f, s: f.exact[s]),
    Tier("synonym", "{synonym}", lambda f, s: f.synonym[s]),
    Tier("prefix", "{prefix}", lambda f, s: f.prefix[s]),
    Tier("words", "{names}", lambda f, s: f.all_words(s, lambda i: f.levels[i] == NAMES)),
    Tier(
        "fuzzy",
        "{fuzzy}",
        lambda f, s: f.all_words(s, lambda i: f.levels[i] == NAMES or f.typo[i]),
    ),
    Tier("coverage", "{score} > 0", lambda f, s: f.scores[s] > 0),
)
RANK = {tier.label: len(TIERS) - n for n, tier in enumerate(TIERS)}
TOP = RANK["name"]
COVERAGE = RANK["coverage"]
LABELS = {rank: label for label, rank in RANK.items()}


def tier_case(**fragments: str) -> str:
    """The SQL `CASE` giving a side's tier number (0: no match) from the fragments."""
    whens = " ".join(
        f"WHEN {tier.sql.format(**fragments)} THEN {RANK[tier.label]}" for tier in TIERS
    )
    return f"(CASE {whens} ELSE 0 END)"


def coverage_case(score: str) -> str:
    """The coverage tier's number when its condition holds for `score`, else 0."""
    return f"(CASE WHEN {TIERS[-1].sql.format(score=score)} THEN {COVERAGE} ELSE 0 END)"


def level_weight_sql(level: str) -> str:
    """`FIELD_WEIGHTS` as SQL over an integer level expression."""
    whens = " ".join(f"WHEN {lv} THEN {w}" for lv, w in FIELD_WEIGHTS.items())
    return f"(CASE {level} {whens} ELSE 0 END)"


def tier_of(features: Features, side: int) -> int:
    for tier in TIERS:
        if tier.test(features, side):
            return RANK[tier.label]
    return 0


def idf(n: float, df: float) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


IDF_SQL = "ln(1 + ({n} - {df} + 0.5) / ({df} + 0.5))"


def coverage(levels: list[int], weights: list[float], side: list[int]) -> float:
    total = sum(weights[i] for i in side)
    if not total:
        return 0.0
    return sum(weights[i] * FIELD_WEIGHTS[levels[i]] for i in side) / total


def coverage_label(levels: list[int], side: list[int], *, article: bool = False) -> str:
    """What a coverage match found: every word in the names or definition ("definition",
    "lead" for articles), every word somewhere ("body"), or only some ("partial")."""
    found = [levels[i] for i in side]
    if found and min(found) >= DEFINITION:
        return "lead" if article else "definition"
    if found and min(found) >= BODY:
        return "body"
    return "partial"


def score(rank: int, closeness: float) -> float:
    """1.0 for an exact name; otherwise (tier + closeness) / (top + 1), below 1.0."""
    if rank >= TOP:
        return 1.0
    return round((rank + min(max(closeness, 0.0), 0.99)) / (TOP + 1), 4)


def weak(rank: int, value: float) -> bool:
    """Whether a hit of tier `rank` and coverage `value` is a guess (CONFIDENT_COVERAGE)."""
    return rank <= COVERAGE and value < CONFIDENT_COVERAGE
