"""A deterministic synthetic glossary for benchmarks: Polish-like words with diacritics,
inflected forms, synonyms, short definitions, Markdown bodies, categories and related links.

    from bench import synthetic
    synthetic.load(count=10_000, seed=1)          # through glossary.importing.import_terms
    rows = synthetic.term_rows(count=100, seed=1) # the same data as import rows (dicts)

Words are built from Polish syllables, so they carry ą, ę, ł, ó, ś, ź, ż, ń and ć and are
stemmed like real Polish ("zasłoniaków" -> "zasłoniak"); each word has inflected forms made
with real case endings, which the search benchmark uses as "inflected" queries. Same seed,
same glossary, on any machine.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator

# fmt: off
ONSETS = (
    "b", "c", "ch", "cz", "d", "dz", "f", "g", "h", "k", "kr", "l", "ł", "m", "n", "p", "pr",
    "r", "s", "sk", "st", "sz", "ś", "t", "tr", "w", "wr", "z", "ż", "ź", "br", "gr", "pl", "kl",
)
NUCLEI = ("a", "e", "i", "o", "u", "y", "ą", "ę", "ó", "ie", "ia", "io")
CODAS = ("", "", "", "n", "r", "s", "k", "ł", "m", "ń", "ść", "t", "j")
# Noun endings that Snowball's Polish stemmer removes: (base suffix, inflected forms).
PARADIGMS = (
    ("ak", ("aka", "akiem", "aków", "akach", "akami", "aku")),
    ("nik", ("nika", "nikiem", "ników", "nikach", "nikami")),
    ("acja", ("acji", "ację", "acją", "acjami", "acjach")),
    ("enie", ("enia", "eniem", "eń", "eniami", "eniach")),
    ("ość", ("ości", "ością", "ościami")),
    ("er", ("era", "erem", "erów", "erach", "erami")),
)
ENGLISH = (
    "stream", "token", "server", "client", "agent", "event", "cache", "queue", "batch", "proxy",
    "socket", "schema", "router", "session", "context", "prompt", "binding", "handler", "cursor",
)
CATEGORY_NAMES = (
    "Protokoły", "Transport", "Bezpieczeństwo", "Dane", "Modele", "Narzędzia", "Architektura",
    "Sieci", "Integracje", "Wydajność", "Interfejsy", "Magazyny", "Kolejki", "Sesje", "Zdarzenia",
)
# fmt: on


class Vocabulary:
    """Nouns (stem + paradigm) drawn once per seed; frequent and rare ones (Zipf-like)."""

    def __init__(self, rng: random.Random, size: int):
        seen: set[str] = set()
        self.nouns: list[tuple[str, tuple[str, ...]]] = []
        while len(self.nouns) < size:
            stem = "".join(
                rng.choice(ONSETS) + rng.choice(NUCLEI) + rng.choice(CODAS)
                for _ in range(rng.randint(1, 2))
            )
            suffix, forms = rng.choice(PARADIGMS)
            base = stem + suffix
            if base in seen or len(base) < 4:
                continue
            seen.add(base)
            self.nouns.append((base, tuple(stem + form for form in forms)))
        # Zipf-like weights: a few words are everywhere (as in real bodies), most are rare.
        self.cum_weights = list(itertools.accumulate(1 / (rank + 1) for rank in range(size)))

    def word(self, rng: random.Random) -> str:
        base, forms = rng.choices(self.nouns, cum_weights=self.cum_weights)[0]
        return base if rng.random() < 0.5 else rng.choice(forms)

    def rare(self, rng: random.Random) -> tuple[str, tuple[str, ...]]:
        return self.nouns[rng.randrange(len(self.nouns))]


def _sentence(rng: random.Random, vocab: Vocabulary, low: int, high: int) -> str:
    text = " ".join(vocab.word(rng) for _ in range(rng.randint(low, high)))
    return text[:1].upper() + text[1:] + "."


def term_rows(
    *, count: int, seed: int = 1, start: int = 0, taken: set[str] | None = None
) -> Iterator[dict]:
    """Exactly `count` term rows in the import format (as `glossary/demo/terms.json`), numbered
    from `start`, with names unique case-insensitively and unique slugs. Deterministic per seed.

    Several batches of one glossary pass the same `taken` set, so a name drawn again in a
    later batch is disambiguated instead of becoming an update of the earlier term."""
    from glossary.polish import polish_slugify

    rng = random.Random(f"{seed}:{start}")
    vocab = Vocabulary(random.Random(seed), 20_000)
    taken = set() if taken is None else taken
    for number in range(start, start + count):
        head, head_forms = vocab.rare(rng)
        words = [head] + [vocab.rare(rng)[0] for _ in range(rng.randint(0, 2))]
        if rng.random() < 0.15:
            words.insert(rng.randint(0, len(words)), rng.choice(ENGLISH))
        base = " ".join(words).capitalize()
        # The row number is unique across the whole glossary: a name (or slug) that ends in it
        # can only repeat another name that ends in the same number. Words carry no digits, so
        # only names without a number need remembering, and a repeat gets the number appended
        # (no redraw: the random stream, and so every other row, stays the same).
        if rng.random() < 0.6:
            name = f"{base} {number}"
            slug = polish_slugify(name)
        else:
            name, slug = base, polish_slugify(base)
            if name.casefold() in taken or slug in taken:
                name = f"{base} {number}"
                slug = polish_slugify(name)
            else:
                taken.update((name.casefold(), slug))
        synonyms = [rng.choice(head_forms) + " " + " ".join(words[1:])]
        synonyms += [" ".join(vocab.rare(rng)[0] for _ in range(rng.randint(1, 2)))]
        if rng.random() < 0.3:
            synonyms.append("".join(w[0] for w in words).upper() + str(number % 97))
        if rng.random() < 0.3:
            synonyms.append(rng.choice(ENGLISH) + " " + rng.choice(ENGLISH))
        body = "\n\n".join(
            _sentence(rng, vocab, 12, 25) + " " + _sentence(rng, vocab, 8, 20) for _ in range(2)
        )
        yield {
            "name": name,
            "slug": slug,
            "short_definition": _sentence(rng, vocab, 8, 18)[:300],
            "body": body,
            "synonyms": [s.strip() for s in synonyms if s.strip()],
            "categories": rng.sample(CATEGORY_NAMES, rng.randint(1, 2)),
            "status": "published" if rng.random() < 0.97 else "draft",
        }


def inflect(word: str, rng: random.Random) -> str:
    """Another case form of a generated noun ("zasłoniak" -> "zasłoniakami"), or the word."""
    for suffix, forms in PARADIGMS:
        if word.endswith(suffix):
            return word[: len(word) - len(suffix)] + rng.choice(forms)
    return word


def batches(
    *, count: int, seed: int = 1, batch: int = 50_000, related: bool = True
) -> Iterator[list[dict]]:
    """`term_rows` cut into import batches, each with related links inside the batch; together
    exactly `count` distinct terms."""
    taken: set[str] = set()
    for start in range(0, count, batch):
        rows = list(term_rows(count=min(batch, count - start), seed=seed, start=start, taken=taken))
        if related:
            rng = random.Random(f"{seed}:related:{start}")
            for row in rows:
                links = {rng.choice(rows)["slug"] for _ in range(rng.randint(0, 2))}
                row["related"] = sorted(links - {row["slug"]})
        yield rows


def load(
    *,
    count: int,
    seed: int = 1,
    batch: int = 50_000,
    related: bool = True,
    progress: Callable[[str], None] | None = None,
) -> None:
    """Import `count` synthetic terms through the real bulk import service, `batch` at a time
    (each batch is one all-or-nothing import, so memory stays bounded at any size)."""
    from glossary.importexport import SourceRow
    from glossary.importing import import_terms

    say = progress or (lambda message: None)
    done = 0
    for rows in batches(count=count, seed=seed, batch=batch, related=related):
        import_terms(SourceRow(position=f"#{done + i}", data=row) for i, row in enumerate(rows))
        done += len(rows)
        say(f"synthetic: {done}/{count} terms imported")
