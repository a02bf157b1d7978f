"""glossary/db/: the one placeholder mechanism, the one bounded cache, the driver settings."""

from datetime import datetime

import pytest

from glossary.db.cache import LRU
from glossary.db.placeholders import CLOCK, locate, stand_in, stand_ins


def test_stand_ins_are_distinct_and_survive_case_changes():
    """Every stand-in of a statement is distinct, of the type of the value it stands for, and
    unchanged by upper- or lower-casing (a builder may normalize a letter), so `locate`
    finds it among the compiled parameters."""
    marks = stand_ins(a=str, b=str, c=int, d=int, e=datetime)
    assert len(set(marks.values())) == len(marks)
    assert marks["a"].upper() == marks["a"] == marks["a"].lower()
    assert isinstance(marks["c"], int) and marks["c"] < 0
    assert marks["e"] != CLOCK
    with pytest.raises(TypeError):
        stand_in(float)


def test_locate_names_each_stand_in_and_keeps_the_constants():
    """Compiled parameters map to (name, None) where a stand-in sits and (None, value) for the
    statement's own constants; a stand-in the ORM transformed gives None (no reuse)."""
    slug, pk = stand_in(str, 0), stand_in(int, 1)
    assert locate(["published", slug, pk, 5], {"slug": slug, "pk": pk}) == [
        (None, "published"),
        ("slug", None),
        ("pk", None),
        (None, 5),
    ]
    assert locate([slug.upper() + "x", pk], {"slug": slug, "pk": pk}) is None
    assert locate([str(pk)], {"pk": pk}) is None  # a text equal in digits is not the id


def test_lru_forgets_the_least_recently_used_and_says_so():
    """The bounded cache keeps at most `size` entries, forgetting the least recently used
    one first, and hands each forgotten value to `on_evict` (a kept cursor is closed)."""
    gone = []
    cache = LRU(2, on_evict=gone.append)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # now the most recent
    cache.put("c", 3)
    assert gone == [2] and "b" not in cache and len(cache) == 2
    assert cache.setdefault("a", 9) == 1 and cache.setdefault("d", 4) == 4
    assert gone == [2, 3]
    cache.clear()
    assert sorted(gone) == [1, 2, 3, 4] and len(cache) == 0


def test_importing_the_settings_leaves_the_driver_alone():
    """Importing the settings changes nothing outside them: the psycopg tuning is applied by
    `GlossaryConfig.ready` (glossary/db/driver.py), once Django is set up on PostgreSQL."""
    import os
    import subprocess
    import sys

    from tests.processes import ROOT

    code = (
        "import config.settings\n"
        "from psycopg import _queries\n"
        "before = _queries.MAX_CACHED_STATEMENT_LENGTH\n"
        "import django\n"
        "django.setup()\n"
        "print(before, _queries.MAX_CACHED_STATEMENT_LENGTH)\n"
    )
    env = {
        "PATH": os.environ.get("PATH", ""),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": "postgres://nobody@localhost:1/none",  # never connected to
    }
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    before, after = map(int, run.stdout.split())
    assert before < 16 * 1024 <= after
