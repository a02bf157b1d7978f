"""Polish text helpers: folding, slugs, alphabetical sort keys and index letters.

Python's NFKD decomposition does not fold "ł" (it has no combining form), so Django's
`slugify("Łańcuch")` would drop the letter. We fold the Polish letters explicitly first.
Sort keys encode each character as two lowercase ASCII letters in Polish alphabetical
order (A Ą B C Ć … Ł … Ź Ż), so any database collation orders them identically.
"""

import re
import unicodedata

from django.utils.text import slugify

_FOLD = str.maketrans("ąćęłńóśźżĄĆĘŁŃÓŚŹŻ", "acelnoszzACELNOSZZ")

# Polish alphabet with the foreign letters q, v, x in their customary places.
ALPHABET = "aąbcćdeęfghijklłmnńoópqrsśtuvwxyzźż"
# Letters of the A–Z navigation: Polish diacritic letters get their own section except Ó,
# which dictionaries customarily file under O (no Polish word starts with it).
INDEX_LETTERS = [c.upper() for c in ALPHABET if c != "ó"]
OTHER_LETTER = "#"

_ORDER = {ch: i for i, ch in enumerate("0123456789" + ALPHABET, start=1)}


def fold(text: str) -> str:
    """Lower-case, strip diacritics (Polish ones included) and collapse whitespace."""
    if text.isascii():  # most queries and every folded column: no decomposition needed
        return " ".join(text.lower().split())
    text = text.translate(_FOLD).casefold()
    if text.isascii():
        return " ".join(text.split())
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(text.split())


# Text that is a slug already: slugify would give it back unchanged (nothing to fold,
# decompose, lower, drop or collapse). The MCP reads normalize every slug an agent sends, and
# nearly all of them are such text, which one regular-expression match answers
# (tests/glossary/test_models.py checks the shortcut against the full path on generated text).
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def polish_slugify(text: str) -> str:
    """'OAuth dla agentów' -> 'oauth-dla-agentow', 'Łańcuch' -> 'lancuch'."""
    if _SLUG.fullmatch(text):
        return text
    return slugify(text.translate(_FOLD))


def _base_char(ch: str) -> str:
    if ch in _ORDER:
        return ch
    decomposed = unicodedata.normalize("NFKD", ch)
    return decomposed[0] if decomposed else ch


def sort_key(text: str) -> str:
    """A collation-independent key ordering `text` the way a Polish dictionary does.

    Letters outside the Polish alphabet fall back to their base letter ("é" -> "e");
    spaces and punctuation sort before any letter, so "API REST" precedes "APIs".
    """
    out = []
    for ch in text.casefold():
        rank = _ORDER.get(_base_char(ch), 0)
        out.append(chr(97 + rank // 26) + chr(97 + rank % 26))
    return "".join(out)[:255]


def index_letter(text: str) -> str:
    """The A–Z section a name is filed under: its first letter, Polish letters kept."""
    for ch in text.strip():
        low = ch.casefold()
        if low == "ó":
            return "O"
        if low in ALPHABET:
            return low.upper()
        base = _base_char(low)
        if base in ALPHABET:
            return base.upper()
        return OTHER_LETTER
    return OTHER_LETTER
