"""The database tricks of the project, in one place.

- `placeholders`: the one way a statement is compiled once with stand-in values whose
  positions among its parameters are then known (`stand_in`, `locate`, `CLOCK`);
- `prepared`: `Prepared`, a read compiled once per connection and re-run with new values;
- `cursors`: driver cursors kept per connection and statement text (`kept_cursor`), and
  statement texts kept as one object per parts (`joined`);
- `bulk`: PostgreSQL's COPY and server-side binding for the import's bulk writes;
- `driver`: psycopg tuning with no public setting, applied from `GlossaryConfig.ready`;
- `cache`: `LRU`, the one bounded cache every per-process cache uses.

Each leans on a Django or psycopg internal behind one small seam with a test that fails by name
when an upgrade changes it (tests/glossary/test_prepared.py, test_db_driver.py,
test_import_export.py).
"""
