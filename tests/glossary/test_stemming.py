"""The stems do not depend on which Snowball implementation runs (glossary/stemming.py)."""

import re
from pathlib import Path

import snowballstemmer
from snowballstemmer.polish_stemmer import PolishStemmer

from glossary import stemming

DEMO = Path(stemming.__file__).resolve().parent / "demo"


def _demo_words() -> set[str]:
    text = " ".join(p.read_text(encoding="utf-8") for p in sorted(DEMO.glob("*.json")))
    return set(re.findall(r"[^\W_]+", text.casefold()))


def test_the_compiled_stemmer_is_installed():
    """requirements.txt pins PyStemmer, so snowballstemmer runs Snowball compiled to C (a
    search never seen before stems its new words ~4x faster than in pure Python)."""
    import Stemmer

    assert snowballstemmer.stemmer is Stemmer.Stemmer
    assert isinstance(stemming._stemmer(), Stemmer.Stemmer)


def test_the_stemmer_keeps_no_cache_of_its_own():
    """`stem`'s LRU cache is the only one: PyStemmer's (10,000 words, each a list the garbage
    collector walks on every full collection) stays empty however many words are stemmed."""
    import gc

    for n in range(200):
        stemming.stem(f"słowoniestemowane{n}")
    assert not [o for o in gc.get_referents(stemming._stemmer()) if isinstance(o, dict) and o]


def test_compiled_and_pure_python_stems_agree_on_the_demo_content():
    """Every word of the demo glossary and articles (inflected Polish, English, codes) gets
    the same stem from the C stemmer as from snowballstemmer's own Python one: the columns
    stored before and after the switch, and both databases, stay comparable."""
    words = _demo_words()
    assert len(words) > 1000
    pure = PolishStemmer()
    compiled = stemming._stemmer()
    differ = {w for w in words if compiled.stemWord(w) != pure.stemWord(w)}
    assert not differ
