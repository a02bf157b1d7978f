"""The glossary's file formats: JSON and CSV rows in, JSON and CSV text out.

This module only turns bytes into `SourceRow`s (raw values plus where they came from) and
export rows back into text; it never touches the database. Checking values against each
other and against the database, and writing, is `glossary.importing.import_terms`'s job, so
a parse problem and a content problem are reported together, in one list of `RowError`s.

CSV list cells (synonyms, categories, related, asked_as) hold items joined with " | ". A
literal "|" or "\\" inside an item is written as "\\|" or "\\\\", so every value survives a
round trip; any other backslash is kept as it is.
"""

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

TERM_FIELDS = (
    "name",
    "slug",
    "short_definition",
    "body",
    "synonyms",
    "categories",
    "related",
    "status",
    "english_name",
    "english_definition",
    "asked_as",
)
LIST_FIELDS = frozenset({"synonyms", "categories", "related", "asked_as"})
ARTICLE_FIELDS = ("title", "slug", "lead", "body", "terms", "series", "series_order", "status")
FORMATS = ("json", "csv")
LIST_SEPARATOR = " | "


@dataclass(frozen=True)
class RowError:
    """One problem found in an import file: where, which field, what, and a stable code."""

    position: str
    field: str | None
    message: str
    code: str

    def __str__(self) -> str:
        where = f"{self.position}, pole „{self.field}”" if self.field else self.position
        return f"{where}: {self.message} [{self.code}]"


class ImportErrors(Exception):
    """An import refused as a whole; `errors` lists every problem, in file order."""

    def __init__(self, errors: list[RowError]):
        self.errors = list(errors)
        super().__init__(self.render())

    def render(self) -> str:
        count = len(self.errors)
        head = f"Import przerwany, nic nie zapisano. Błędy ({count}):"
        return "\n".join([head, *(f"  {error}" for error in self.errors)])


@dataclass(frozen=True)
class SourceRow:
    """One record of an import file: its raw values and a human label of its place.

    `errors` carries problems the parser already saw in this record (e.g. a CSV line with
    too many cells), so they are reported together with the content checks.
    """

    position: str
    data: object
    errors: tuple[RowError, ...] = field(default=())


def format_for_path(path: str) -> str | None:
    """'terms.json' -> 'json', 'TERMS.CSV' -> 'csv', anything else -> None."""
    suffix = Path(path).suffix.lower().lstrip(".")
    return suffix if suffix in FORMATS else None


def decode(data: bytes) -> str:
    """UTF-8 text of a file (a leading byte-order mark, as spreadsheets write, is dropped)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ImportErrors(
            [
                RowError(
                    f"wiersz {line}", None, "Plik nie jest w kodowaniu UTF-8.", "invalid_encoding"
                )
            ]
        ) from None


def parse(fmt: str, text: str) -> list[SourceRow]:
    return parse_json(text) if fmt == "json" else parse_csv(text)


def parse_json(text: str) -> list[SourceRow]:
    """Rows of a JSON file: a top-level list of objects."""
    try:
        items = json.loads(text)
    except json.JSONDecodeError as exc:
        position = f"wiersz {exc.lineno}, kolumna {exc.colno}"
        raise ImportErrors(
            [RowError(position, None, f"Niepoprawny JSON: {exc.msg}.", "invalid_json")]
        ) from None
    if not isinstance(items, list):
        raise ImportErrors(
            [RowError("plik", None, "Plik JSON musi zawierać listę obiektów.", "invalid_json")]
        )
    return rows_from_objects(items)


def rows_from_objects(items: list) -> list[SourceRow]:
    """Rows of already-parsed JSON items, labelled by 0-based index and slug (or name)."""
    rows = []
    for index, item in enumerate(items):
        label = f"element {index}"
        if isinstance(item, dict):
            for key in ("slug", "name", "title"):
                value = item.get(key)
                if isinstance(value, str) and value.strip():
                    label += f" ({key} „{value.strip()[:60]}”)"
                    break
        rows.append(SourceRow(label, item))
    return rows


def parse_csv(text: str) -> list[SourceRow]:
    """Rows of a CSV file with a header row naming the columns (any order, any subset).

    Positions are the file line a record starts on (quoted cells may span lines). An empty
    status cell counts as a missing one; an empty list cell is an empty list.
    """
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise _csv_error(reader, exc) from None
    if header is None:
        raise ImportErrors(
            [RowError("plik", None, "Plik CSV jest pusty (brak wiersza nagłówka).", "empty_file")]
        )
    header = [name.strip() for name in header]
    problems = []
    for name in sorted(set(header) - set(TERM_FIELDS)):
        problems.append(
            RowError("wiersz 1", name, "Nieznana kolumna.", "unknown_field"),
        )
    for name in sorted({name for name in header if header.count(name) > 1}):
        problems.append(RowError("wiersz 1", name, "Kolumna powtórzona.", "duplicate_column"))
    for name in ("name", "slug"):
        if name not in header:
            problems.append(RowError("wiersz 1", name, "Brak wymaganej kolumny.", "required"))
    if problems:
        raise ImportErrors(problems)

    rows = []
    start = reader.line_num + 1
    while True:
        try:
            cells = next(reader, None)
        except csv.Error as exc:
            raise _csv_error(reader, exc) from None
        if cells is None:
            break
        position, start = f"wiersz {start}", reader.line_num + 1
        if not any(cell.strip() for cell in cells):
            continue  # blank lines are not records
        errors = ()
        if len(cells) != len(header):
            message = f"Oczekiwano {len(header)} pól, jest {len(cells)}."
            errors = (RowError(position, None, message, "wrong_field_count"),)
        data = {}
        for name, cell in zip(header, cells, strict=False):
            if name in LIST_FIELDS:
                data[name] = split_list(cell)
            elif name != "status" or cell.strip():
                data[name] = cell
        rows.append(SourceRow(position, data, errors))
    return rows


def _csv_error(reader, exc: csv.Error) -> ImportErrors:
    return ImportErrors(
        [RowError(f"wiersz {reader.line_num}", None, f"Niepoprawny CSV: {exc}.", "invalid_csv")]
    )


def split_list(cell: str) -> list[str]:
    """'a | b\\|c' -> ['a', 'b|c']: split on unescaped pipes, trim items, drop empty ones."""
    items, current, chars = [], [], iter(cell)
    for ch in chars:
        if ch == "\\":
            nxt = next(chars, "")
            if nxt in ("|", "\\"):
                current.append(nxt)
            else:
                current.append(ch + nxt)
        elif ch == "|":
            items.append("".join(current))
            current = []
        else:
            current.append(ch)
    items.append("".join(current))
    return [item.strip() for item in items if item.strip()]


def join_list(items: list[str]) -> str:
    return LIST_SEPARATOR.join(item.replace("\\", "\\\\").replace("|", "\\|") for item in items)


def dump(fmt: str, rows: list[dict]) -> str:
    return dump_json(rows) if fmt == "json" else dump_csv(rows)


def dump_json(rows: list[dict]) -> str:
    """Export rows as pretty, UTF-8 (not \\u-escaped) JSON with keys in `TERM_FIELDS` order."""
    ordered = [{name: row[name] for name in TERM_FIELDS} for row in rows]
    return json.dumps(ordered, ensure_ascii=False, indent=2) + "\n"


def dump_csv(rows: list[dict]) -> str:
    """Export rows as CSV (RFC 4180: CRLF line ends), a header row, then one record per term.

    CRLF is not a taste: with a bare "\\n" terminator Python's writer leaves a lone "\\r"
    inside a cell unquoted, and such a cell would split the record when read back.
    """
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(TERM_FIELDS)
    for row in rows:
        writer.writerow(
            [join_list(row[name]) if name in LIST_FIELDS else row[name] for name in TERM_FIELDS]
        )
    return out.getvalue()
