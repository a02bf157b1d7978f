"""Polish word stems for search, computed in Python so PostgreSQL and SQLite index the same thing.

PostgreSQL 15 ships no Polish stemmer, and a Hunspell dictionary costs ~27 MB and ~0.6 s per
backend. We use the Snowball `polish` stemmer (`snowballstemmer`; with PyStemmer installed it
runs the same Snowball 3.1 algorithm compiled to C, several times faster, with the
same stems: checked on the 87,000 distinct words of the benchmark glossary, and by
tests/glossary/test_stemming.py) rather than a lemmatizer: simplemma needs ~2.6 s and ~410 MB
per process to load its Polish dictionary and pystempel ~4 s and ~175 MB (and turns
diacritic-less input into nonsense). Snowball needs the diacritics to recognise endings
("agentów" -> "agent", but "agentow" -> "agentow"), so documents are stemmed as written and
folded afterwards, and a query typed without diacritics also tries the common diacritic
endings (`query_stems`).
"""

import re
import threading
from functools import lru_cache

import snowballstemmer

from .polish import fold

_WORD = re.compile(r"[^\W_]+")
# Word-final letters a Polish query typed without diacritics has most likely lost.
_RESTORE_ENDINGS = (("ow", "ów"), ("a", "ą"), ("e", "ę"), ("en", "eń"), ("an", "ań"), ("sc", "ść"))
_local = threading.local()


def _stemmer():
    # Snowball stemmer objects keep state while stemming: one per thread.
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = snowballstemmer.stemmer("polish")
        # PyStemmer's own cache (10,000 words, each a two-item list the garbage collector
        # walks on every full collection) only repeats `stem`'s LRU cache above it.
        if hasattr(stemmer, "maxCacheSize"):
            stemmer.maxCacheSize = 0
    return stemmer


def words(text: str) -> list[str]:
    """Lower-cased words of `text`, diacritics kept ("JSON-RPC 2.0" -> json, rpc, 2, 0)."""
    return _WORD.findall(text.casefold())


# Large on purpose: a bulk import meets each word many times (a glossary has ~10^5 forms).
@lru_cache(maxsize=262_144)
def stem(word: str) -> str:
    """The folded Snowball stem of one lower-case word; words under four letters are kept."""
    if len(word) < 4:
        return fold(word)
    return fold(_stemmer().stemWord(word))


def document_stems(*texts: str) -> str:
    """Distinct stems of `texts`, space-separated and space-padded (for `LIKE '% stem %'`).

    A hyphenated or slashed compound also contributes its parts glued together, so
    "JSON-RPC" is found by "jsonrpc" as well as by "json" and "rpc".
    """
    out: dict[str, None] = {}
    for text in texts:
        for chunk in text.split():
            parts = words(chunk)
            for part in parts:
                out[stem(part)] = None
            if len(parts) > 1:
                out[fold("".join(parts))] = None
    return f" {' '.join(out)} " if out else ""


def query_stems(word: str) -> list[str]:
    """Stems a document word must have for `word` (one query word) to match it, any of them."""
    alternatives = {stem(word)}
    # Typed without diacritics (a lower-case ASCII word, as `words` gives them, is its own
    # folded form): try the endings it may have lost.
    if (word.isascii() and word.islower()) or fold(word) == word:
        for plain, marked in _RESTORE_ENDINGS:
            if word.endswith(plain) and len(word) - len(plain) >= 3:
                alternatives.add(stem(word[: -len(plain)] + marked))
    return sorted(alternatives)


# English plural endings, longest first, and what the singular ends with instead.
_ENGLISH_PLURALS = (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("sses", "ss"), ("xes", "x"))


def english_singulars(word: str) -> list[str]:
    """Stems of the English singulars a plain-ASCII query word may be the plural of
    ("tools" -> tool, "llms" -> llm, "capabilities" -> capability, "caches" -> cache): the
    Polish stemmer keeps English plurals whole, so "hallucinations" would miss an entry
    named "hallucination". Empty for other words (a Polish word in -s gains at most a
    shorter stem that names nothing: "kurs" -> "kur")."""
    if not word.isascii() or len(word) < 4 or not word.endswith("s"):
        return []
    if word.endswith(("ss", "us")) or (word.endswith("is") and len(word) > 4):
        return []  # "class", "status", "analysis": no plural ("apis", "uris" are)
    out = [word[:-1]]
    for plural, singular in _ENGLISH_PLURALS:
        if word.endswith(plural) and len(word) - len(plural) >= 2:
            out.append(word[: -len(plural)] + singular)
            break
    return [stem(w) for w in out]


# Polish locative and dative endings that soften the stem's last consonant ("serwer" ->
# "serwerze", "kod" -> "kodzie", "kontekst" -> "kontekście", "klient" -> "kliencie"), which
# the Snowball stemmer keeps: the ending a query word has, and the consonant it replaced.
_SOFTENED = (("ście", "st"), ("scie", "st"), ("dzie", "d"), ("rze", "r"), ("cie", "t"))
_VOWELS = frozenset("aąeęioóuy")


def polish_alternations(word: str) -> list[str]:
    """Stems of the base forms a Polish query word may be an alternation of, beyond
    `query_stems`: a softened ending undone ("na serwerze" -> serwer, "w kodzie" -> kod),
    and a mobile e restored ("nagłówku" -> nagłówek: Snowball gives "naglowk")."""
    out = []
    for ending, base in _SOFTENED:
        if word.endswith(ending) and len(word) - len(ending) >= 2:
            out.append(stem(word[: -len(ending)] + base))
            break
    s = stem(word)
    if len(s) >= 4 and s[-1] == "k" and s[-2] not in _VOWELS:
        out.append(s[:-1] + "ek")
    return out


def names_field(names: list[str]) -> str:
    """Folded names as "| serwer mcp | mcp server |", each also with punctuation dropped
    ("agent-readiness" and "agent readiness"), so `LIKE '%| q |%'` is an exact-name test."""
    out: dict[str, None] = {}
    for name in names:
        folded = fold(name)
        for variant in (folded, " ".join(words(folded))):
            if variant:
                out[variant] = None
    return f"| {' | '.join(out)} |" if out else ""


TYPO_MIN_LENGTH = 5


def deletion_keys(word: str) -> list[str]:
    """`word` and every form of it with one letter deleted (words of five letters or more).

    Two words within one edit (or a swap of neighbouring letters) share a key: "agnet" and
    "agent" both give "agnt". Stored for names, matched with the array overlap operator on a
    GIN index, it finds typos that trigrams miss in short words.
    """
    if len(word) < TYPO_MIN_LENGTH:
        return []
    keys = {word[:i] + word[i + 1 :] for i in range(len(word))}
    keys.add(word)
    return sorted(keys)


def typo_keys(name: str) -> str:
    """Space-padded deletion keys of the folded words of a term name."""
    keys: dict[str, None] = {}
    for word in words(fold(name)):
        keys.update(dict.fromkeys(deletion_keys(word)))
    return f" {' '.join(keys)} " if keys else ""


# Colloquial Polish derives words from a term's name: diminutives ("tokenik", "agencik",
# "backupik", "serwerek"), verbs' nouns and verbs from a borrowed name ("promptowanie",
# "curlnąć"). Stem endings such a word has and its base has not, longest first; a "c" before
# a diminutive "ik" was a "t" ("agent" -> "agencik"). Endings that close many ordinary stems
# ("-ow", "-k") are left out: each base is another lexeme every search of the word probes
# (docs/benchmarks.md, "Search that holds up").
# Each ending with the shortest base it leaves.
_DERIVED_STEM_ENDINGS = (("owan", 4), ("ik", 4), ("yk", 5), ("ek", 5))
_DERIVED_WORD_ENDINGS = ("nąć", "nął", "nęła", "nęli", "nij")
DERIVED_BASE_MIN = 4


def derived_bases(word: str) -> list[str]:
    """Stems of the base a colloquial derivation of a name may come from, beyond the
    stemmer's inflection: a diminutive's noun, a borrowed verb's or its noun's name
    ("tokenika" -> token, "agencik" -> agent, "promptowania" -> prompt, "curlnąć" -> curl).
    Empty for words whose base would be too short to name anything alone."""
    out = []
    for ending in _DERIVED_WORD_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= DERIVED_BASE_MIN:
            out.append(fold(word[: -len(ending)]))
            break
    s = stem(word)
    for ending, shortest in _DERIVED_STEM_ENDINGS:
        if s.endswith(ending) and len(s) - len(ending) >= shortest:
            base = s[: -len(ending)]
            out.append(base)
            if ending == "ik" and base.endswith("c"):
                out.append(base[:-1] + "t")
            break
    return out
