"""Import and export of the glossary: formats, upsert, all-or-nothing validation, links."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from glossary import importing
from glossary.db import bulk
from glossary.importexport import ImportErrors, join_list, parse_csv, parse_json, split_list
from glossary.importing import export_terms, import_terms
from glossary.models import Category, Status, Term
from tests.factories import make_category, make_draft_term, make_term

pytestmark = pytest.mark.django_db


def term_row(slug, **fields):
    name = fields.pop("name", slug.replace("-", " ").title())
    return {
        "name": name,
        "slug": slug,
        "short_definition": f"Definicja {name}.",
        "status": "published",
        **fields,
    }


def write(tmp_path, name, content):
    path = tmp_path / name
    if isinstance(content, list):
        content = json.dumps(content, ensure_ascii=False)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return str(path)


def import_file(path, *args):
    out, err = StringIO(), StringIO()
    call_command("import_glossary", path, *args, stdout=out, stderr=err)
    return out.getvalue()


def export_text(fmt):
    out = StringIO()
    call_command("export_glossary", "--format", fmt, stdout=out, stderr=StringIO())
    return out.getvalue()


def import_errors(items):
    with pytest.raises(ImportErrors) as exc:
        import_terms(parse_json(json.dumps(items)))
    return [(e.position, e.field, e.code) for e in exc.value.errors]


def related_slugs(slug):
    return sorted(Term.objects.get(slug=slug).related.values_list("slug", flat=True))


def snapshot():
    """Every term and link as plain values, to compare database states."""
    return export_terms(), Category.objects.count()


def test_json_import_creates_terms_categories_and_links(tmp_path):
    """A JSON file creates its terms with every field, categories by name and links."""
    path = write(
        tmp_path,
        "t.json",
        [
            term_row(
                "mcp",
                name="MCP",
                body="Opis **MCP**.",
                synonyms=["Model Context Protocol"],
                categories=["Protokoły"],
                related=["json-rpc"],
            ),
            term_row("json-rpc", name="JSON-RPC", categories=["Protokoły", "Formaty danych"]),
            {"name": "Szkic", "slug": "szkic"},
        ],
    )
    assert "nowe pojęcia 3" in import_file(path)

    mcp = Term.objects.get(slug="mcp")
    assert mcp.name == "MCP"
    assert mcp.synonyms == ["Model Context Protocol"]
    assert mcp.body_html == "<p>Opis <strong>MCP</strong>.</p>\n"
    assert mcp.is_public and mcp.letter == "M" and mcp.sort_key
    assert related_slugs("json-rpc") == ["mcp"]
    assert Category.objects.get(name="Formaty danych").slug == "formaty-danych"
    draft = Term.objects.get(slug="szkic")
    assert (draft.status, draft.body, draft.synonyms, draft.published_at) == (
        Status.DRAFT,
        "",
        [],
        None,
    )


def test_csv_import_splits_list_cells_on_pipes(tmp_path):
    """CSV list cells are split on " | "; an escaped pipe stays inside its item."""
    csv_text = (
        "slug,name,short_definition,synonyms,categories,related,status\n"
        'sse,SSE,Strumień zdarzeń.,"Server-Sent Events | text/event-stream | a\\|b",'
        "Transporty,websocket,published\n"
        "websocket,WebSocket,Dwukierunkowy kanał.,,Transporty | Protokoły,,\n"
    )
    import_file(write(tmp_path, "t.csv", csv_text))

    sse = Term.objects.get(slug="sse")
    assert sse.synonyms == ["Server-Sent Events", "text/event-stream", "a|b"]
    assert related_slugs("websocket") == ["sse"]
    websocket = Term.objects.get(slug="websocket")
    assert websocket.status == Status.DRAFT  # an empty status cell means "missing"
    assert sorted(websocket.categories.values_list("name", flat=True)) == [
        "Protokoły",
        "Transporty",
    ]


def test_second_import_updates_terms_by_slug_without_duplicates(tmp_path):
    """Importing again upserts by slug: changed rows are updated, none are duplicated."""
    make_term("Stara nazwa", slug="mcp")
    import_terms(parse_json(json.dumps([term_row("mcp", name="MCP"), term_row("sse")])))
    report = import_terms(
        parse_json(json.dumps([term_row("mcp", name="MCP", body="Nowe."), term_row("sse")]))
    )

    assert (report.created, report.updated, report.unchanged) == (0, 1, 1)
    assert Term.objects.count() == 2
    assert Term.objects.get(slug="mcp").body == "Nowe."


def test_unchanged_rows_are_not_written(tmp_path):
    """A row that matches the database keeps its `updated_at`; a changed row gets a new one."""
    rows = [term_row("mcp", related=["sse"]), term_row("sse")]
    import_terms(parse_json(json.dumps(rows)))
    before = dict(Term.objects.values_list("slug", "updated_at"))

    rows[1]["body"] = "Zmiana."
    import_terms(parse_json(json.dumps(rows)))
    after = dict(Term.objects.values_list("slug", "updated_at"))

    assert after["mcp"] == before["mcp"]
    assert after["sse"] > before["sse"]


def test_bulk_written_rows_get_derived_fields_and_dates():
    """Bulk paths do what save() does: derived fields, published_at, updated_at."""
    term = make_draft_term("Łańcuch", short_definition="Definicja.")
    import_terms(
        parse_json(
            json.dumps(
                [
                    {
                        "name": "Łańcuch narzędzi",
                        "slug": term.slug,
                        "short_definition": "Nowa.",
                        "synonyms": ["toolchain"],
                        "body": "*x*",
                        "status": "published",
                    }
                ]
            )
        )
    )
    updated = Term.objects.get(pk=term.pk)
    assert updated.is_public
    assert updated.updated_at > term.updated_at
    assert (updated.letter, updated.name_folded) == ("Ł", "lancuch narzedzi")
    assert "toolchain" in updated.search_text
    assert updated.body_html == "<p><em>x</em></p>\n"


def test_every_invalid_row_is_reported_and_nothing_is_written(tmp_path):
    """One file with many bad rows: each is listed with its index and reason, nothing saved."""
    make_term("Istniejące", slug="istniejace")
    before = snapshot()
    items = [
        term_row("dobry"),  # 0: fine
        {"slug": "bez-nazwy", "status": "draft"},  # 1
        term_row("za-dluga", short_definition="x" * 301),  # 2
        term_row("bez-definicji", short_definition=""),  # 3
        term_row("dobry", name="Inny dobry"),  # 4: duplicate slug
        term_row("drugi", name="DOBRY"),  # 5: duplicate name (case-insensitive)
        term_row("trzeci", name="istniejące"),  # 6: name of another term in the database
        term_row("status", status="live"),  # 7
        term_row("nieznany", related=["nie-ma-takiego"]),  # 8
        term_row("sam", related=["sam"]),  # 9
        term_row("typy", synonyms="jeden", categories=[1]),  # 10
        term_row("Zły Slug"),  # 11
        {**term_row("extra"), "kolor": "zielony"},  # 12
        "nie obiekt",  # 13
        {**term_row("bez-slugu"), "slug": ""},  # 14
        term_row("ang-dluga", english_definition="x" * 301),  # 15
        term_row("ang-nul", english_name="Tool\x00call", english_definition=7),  # 16
        term_row("pytano", asked_as="jedno"),  # 17
        term_row("pytano-nul", asked_as=["dobre", "złe\x01"]),  # 18
        term_row("synonim-nul", synonyms=["z\x00nulem"]),  # 19
    ]
    errors = import_errors(items)

    assert errors == [
        ("element 1 (slug „bez-nazwy”)", "name", "required"),
        ("element 2 (slug „za-dluga”)", "short_definition", "too_long"),
        ("element 3 (slug „bez-definicji”)", "short_definition", "definition_required"),
        ("element 4 (slug „dobry”)", "slug", "duplicate_slug"),
        ("element 5 (slug „drugi”)", "name", "duplicate_name"),
        ("element 6 (slug „trzeci”)", "name", "duplicate_name"),
        ("element 7 (slug „status”)", "status", "invalid_status"),
        ("element 8 (slug „nieznany”)", "related", "unknown_related"),
        ("element 9 (slug „sam”)", "related", "self_related"),
        ("element 10 (slug „typy”)", "synonyms", "invalid_type"),
        ("element 10 (slug „typy”)", "categories", "invalid_type"),
        ("element 11 (slug „Zły Slug”)", "slug", "invalid_slug"),
        ("element 12 (slug „extra”)", "kolor", "unknown_field"),
        ("element 13", None, "invalid_type"),
        ("element 14 (name „Bez Slugu”)", "slug", "required"),
        ("element 15 (slug „ang-dluga”)", "english_definition", "too_long"),
        ("element 16 (slug „ang-nul”)", "english_name", "control_characters"),
        ("element 16 (slug „ang-nul”)", "english_definition", "invalid_type"),
        ("element 17 (slug „pytano”)", "asked_as", "invalid_type"),
        ("element 18 (slug „pytano-nul”)", "asked_as", "control_characters"),
        ("element 19 (slug „synonim-nul”)", "synonyms", "control_characters"),
    ]
    assert snapshot() == before


def test_command_lists_all_errors_and_exits_non_zero(tmp_path):
    """The command fails with CommandError (exit status 1) naming each bad row and reason."""
    path = write(
        tmp_path, "t.json", [term_row("a"), term_row("b", status="x"), term_row("c", related=["z"])]
    )
    with pytest.raises(CommandError) as exc:
        import_file(path)

    message = str(exc.value)
    assert "nic nie zapisano" in message
    assert "element 1 (slug „b”), pole „status”" in message
    assert "element 2 (slug „c”), pole „related”: Powiązane pojęcie „z” nie istnieje" in message
    assert exc.value.returncode == 1
    assert not Term.objects.exists()


def test_csv_errors_name_the_file_line(tmp_path):
    """CSV errors give the line a record starts on, counting lines inside quoted cells."""
    csv_text = (
        "name,slug,body,short_definition,status\n"
        'Pierwsze,pierwsze,"dwie\nlinie",Def.,published\n'
        "Drugie,drugie,,,published\n"
        "Trzecie,trzecie,,Def.,published,nadmiarowe\n"
    )
    with pytest.raises(ImportErrors) as exc:
        import_terms(parse_csv(csv_text))

    assert [(e.position, e.code) for e in exc.value.errors] == [
        ("wiersz 4", "definition_required"),
        ("wiersz 5", "wrong_field_count"),
    ]


def test_csv_header_must_name_known_columns():
    """A CSV header with an unknown column, or without name/slug, is rejected at line 1."""
    with pytest.raises(ImportErrors) as exc:
        parse_csv("nazwa,slug,kolor\nA,a,b\n")

    assert {(e.position, e.field, e.code) for e in exc.value.errors} == {
        ("wiersz 1", "nazwa", "unknown_field"),
        ("wiersz 1", "kolor", "unknown_field"),
        ("wiersz 1", "name", "required"),
    }


def test_invalid_json_reports_line_and_column(tmp_path):
    """Malformed JSON is reported with its line and column, and nothing is written."""
    path = write(tmp_path, "t.json", '[\n  {"name": "A", "slug": "a"},\n  {"name": }\n]')
    with pytest.raises(CommandError, match=r"wiersz 3, kolumna 12: Niepoprawny JSON"):
        import_file(path)


def test_invalid_csv_and_encoding_report_position(tmp_path):
    """An unterminated quote and bytes that are not UTF-8 are reported with their line."""
    with pytest.raises(CommandError, match=r"wiersz 3: Niepoprawny CSV"):
        import_file(write(tmp_path, "a.csv", 'name,slug\nA,a\n"B,b\n'))
    with pytest.raises(CommandError, match=r"wiersz 2: Plik nie jest w kodowaniu UTF-8"):
        import_file(write(tmp_path, "b.csv", b"name,slug\n\xff,a\n"))


def test_unknown_extension_is_a_clear_error(tmp_path):
    """Only .json and .csv files are imported; anything else names the expected formats."""
    with pytest.raises(CommandError, match=r"oczekiwano rozszerzenia \.json albo \.csv"):
        import_file(write(tmp_path, "terms.xlsx", "x"))


def test_missing_file_is_a_clear_error(tmp_path):
    """A path that cannot be read is a CommandError, not a traceback."""
    with pytest.raises(CommandError, match="Nie można odczytać pliku"):
        import_file(str(tmp_path / "brak.json"))


def test_related_links_resolve_forward_references_and_cycles():
    """Related slugs may point forward in the file and form cycles; links are symmetrical."""
    import_terms(
        parse_json(
            json.dumps(
                [
                    term_row("a", related=["b"]),
                    term_row("b", related=["c"]),
                    term_row("c", related=["a"]),
                ]
            )
        )
    )
    assert related_slugs("a") == ["b", "c"]
    assert related_slugs("b") == ["a", "c"]
    assert related_slugs("c") == ["a", "b"]


def test_file_sets_the_links_of_the_terms_it_lists():
    """A listed term's links become those declared on either side in the file (plus
    database terms it names); links between terms the file does not list are untouched."""
    a, b, c, d = (make_term(slug=s) for s in "abcd")
    a.related.add(b, c)
    c.related.add(d)

    import_terms(parse_json(json.dumps([term_row("a", name=a.name), term_row("b", name=b.name)])))
    assert related_slugs("a") == []
    assert related_slugs("c") == ["d"]

    import_terms(
        parse_json(
            json.dumps([term_row("a", name=a.name, related=["d"]), term_row("b", name=b.name)])
        )
    )
    assert related_slugs("a") == ["d"]
    assert related_slugs("d") == ["a", "c"]


def test_renamed_terms_may_swap_names():
    """Two existing terms may exchange names in one import (unique index never trips)."""
    make_term("Alfa", slug="a")
    make_term("Beta", slug="b")
    import_terms(parse_json(json.dumps([term_row("a", name="Beta"), term_row("b", name="Alfa")])))

    assert dict(Term.objects.values_list("slug", "name")) == {"a": "Beta", "b": "Alfa"}


def test_existing_categories_are_matched_case_insensitively():
    """A category named in another case is the existing one, not a second category."""
    protocols = make_category("Protokoły")
    import_terms(parse_json(json.dumps([term_row("mcp", categories=["PROTOKOŁY"])])))

    assert list(Term.objects.get(slug="mcp").categories.all()) == [protocols]
    assert Category.objects.count() == 1


def test_dry_run_writes_nothing(tmp_path):
    """--dry-run checks the file and reports what it would do, but writes nothing."""
    make_term("MCP", slug="mcp")
    before = snapshot()
    path = write(tmp_path, "t.json", [term_row("mcp", body="Zmiana"), term_row("nowe")])

    output = import_file(path, "--dry-run")

    assert "próba, nic nie zapisano" in output
    assert "nowe pojęcia 1, zmienione 1" in output
    assert snapshot() == before


def make_rich_glossary():
    protocols, transports = make_category("Protokoły"), make_category("Transporty")
    mcp = make_term(
        "MCP",
        slug="mcp",
        body="Akapit.\r\n\r\n```\nkod | z potokiem \\ i ukośnikiem\n```\n",
        synonyms=["Model Context Protocol", "potok | w synonimie", "C:\\ścieżka", "„cudzysłów”"],
        english_name='Model Context Protocol, "MCP"',
        english_definition="An open protocol | with a pipe, a comma and C:\\path.",
        asked_as=["jak agent | woła narzędzia", "C:\\ask", "protokół od Anthropic"],
    )
    mcp.categories.set([protocols, transports])
    sse = make_term("SSE", slug="sse", short_definition='Definicja, z przecinkiem i "cudzysłowem".')
    sse.categories.set([transports])
    draft = make_draft_term("Żółw", slug="zolw", short_definition="")
    mcp.related.set([sse, draft])


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_export_then_import_round_trips_exactly(fmt, tmp_path):
    """Export -> import into an empty glossary restores every field, category and link,
    and exporting again gives byte-identical output."""
    make_rich_glossary()
    first = export_text(fmt)
    rows = export_terms()

    Term.objects.all().delete()
    Category.objects.all().delete()
    import_file(write(tmp_path, f"t.{fmt}", first))

    assert export_terms() == rows
    assert export_text(fmt) == first
    assert Term.objects.get(slug="mcp").body_html.startswith("<p>Akapit.</p>")


def test_export_is_ordered_and_deterministic():
    """Export orders terms by slug, categories alphabetically (Polish) and related slugs."""
    make_rich_glossary()
    rows = export_terms()

    assert [row["slug"] for row in rows] == ["mcp", "sse", "zolw"]
    assert rows[0]["categories"] == ["Protokoły", "Transporty"]
    assert rows[0]["related"] == ["sse", "zolw"]
    assert rows[0]["synonyms"][1] == "potok | w synonimie"  # stored order kept
    assert rows[0]["asked_as"][0] == "jak agent | woła narzędzia"
    assert (rows[1]["english_name"], rows[1]["asked_as"]) == ("", [])


def test_the_import_sets_the_english_fields_and_asked_as_and_keeps_them_when_left_out():
    """The import writes english_name, english_definition and asked_as (plain text,
    whitespace collapsed; asked_as kept like synonyms) and the search columns know them; a
    file without these columns (written before they existed) keeps what a listed term
    has, and an empty value clears it."""
    import_terms(parse_json(json.dumps([
        term_row("wywolanie", name="Wywołanie narzędzia", english_name=" Tool  call ",
                 english_definition="A model's request\nto run a tool.",
                 asked_as=["jak model odpala funkcję", " JAK MODEL ODPALA FUNKCJĘ "]),
    ])))  # fmt: skip
    term = Term.objects.get(slug="wywolanie")
    assert (term.english_name, term.english_definition, term.asked_as) == (
        "Tool call", "A model's request to run a tool.", ["jak model odpala funkcję"],
    )  # fmt: skip
    assert "| tool call |" in term.search_names and "odpala" in term.search_text

    report = import_terms(parse_json(json.dumps([term_row("wywolanie", name="Wywołanie")])))
    term.refresh_from_db()
    assert report.updated == 1 and term.name == "Wywołanie"
    assert (term.english_name, term.asked_as) == ("Tool call", ["jak model odpala funkcję"])

    rows = [term_row("wywolanie", name="Wywołanie", english_name="", asked_as=[])]
    import_terms(parse_json(json.dumps(rows)))
    term.refresh_from_db()
    assert (term.english_name, term.asked_as) == ("", [])
    assert term.english_definition == "A model's request to run a tool."


def test_export_writes_stdout_by_default_and_files_by_extension(tmp_path):
    """Without FILE the export is JSON on stdout; with FILE the extension picks the format."""
    make_term("MCP", slug="mcp")
    out = StringIO()
    call_command("export_glossary", stdout=out, stderr=StringIO())
    assert json.loads(out.getvalue())[0]["slug"] == "mcp"

    target = tmp_path / "out.csv"
    call_command("export_glossary", str(target), stdout=StringIO(), stderr=StringIO())
    assert target.read_text(encoding="utf-8").startswith("name,slug,short_definition,")
    with pytest.raises(CommandError, match="Nieznany format"):
        call_command("export_glossary", str(tmp_path / "out.txt"), stderr=StringIO())


def test_list_cells_escape_pipes_and_backslashes():
    """CSV list items round-trip through " | " joining, pipes and backslashes included."""
    items = ["zwykły", "a|b", "c\\d", "e\\|f", "koniec\\"]
    assert split_list(join_list(items)) == items
    assert split_list(" a |  | b ") == ["a", "b"]


def test_import_query_count_is_bounded(django_assert_max_num_queries):
    """Importing 100 rows with categories and links costs a constant handful of queries,
    not one per row or per link."""
    make_term("Istniejące", slug="istniejace")
    rows = [
        term_row(
            f"t-{i}",
            categories=[f"Kategoria {i % 5}"],
            related=[f"t-{(i + 1) % 100}", "istniejace"],
            english_name=f"Term {i}",
            english_definition=f"Definition {i}.",
            asked_as=[f"pytanie {i}"],
        )
        for i in range(100)
    ]
    # 20 for the rows and links; up to 12 more for auto-linking (states before and after, the
    # texts that mention them, the linker, links stored) and one revision for the import.
    with django_assert_max_num_queries(32):
        import_terms(parse_json(json.dumps(rows)))
    assert Term.objects.count() == 101

    for row in rows:
        row["body"] = "Zmienione."
    with django_assert_max_num_queries(32):
        report = import_terms(parse_json(json.dumps(rows)))
    assert report.updated == 100


def test_parallel_derivation_matches_the_models_own(monkeypatch):
    """Large imports run refresh_derived() in worker processes; results equal save()'s."""
    monkeypatch.setattr(importing.apply, "_PARALLEL_FROM", 1)
    monkeypatch.setattr(importing.apply, "_PARALLEL_CHUNK", 2)
    rows = [term_row(f"rownolegle-{i}", name=f"Źródło {i}", body=f"**{i}**") for i in range(5)]
    import_terms(parse_json(json.dumps(rows)))

    for term in Term.objects.all():
        expected = Term(
            name=term.name,
            slug=term.slug,
            short_definition=term.short_definition,
            body=term.body,
            synonyms=term.synonyms,
        )
        expected.refresh_derived()
        assert (term.body_html, term.sort_key, term.letter, term.search_text) == (
            expected.body_html,
            expected.sort_key,
            expected.letter,
            expected.search_text,
        )


@pytest.mark.postgres
def test_the_import_binds_its_bulk_values_on_the_server():
    """Seam: inside `server_side_binding()` Django's PostgreSQL connection hands out its own
    server-binding cursor (no Python quoting of bulk values), and the site's setting is back
    afterwards, also after an error."""
    from django.db import connection
    from django.db.backends.postgresql.base import ServerBindingCursor

    with connection.cursor() as cursor:
        before = type(cursor.cursor)
    with bulk.server_side_binding(), connection.cursor() as cursor:
        assert isinstance(cursor.cursor, ServerBindingCursor)
        cursor.execute("SELECT %s::text[]", [["a'b", "\\c"]])
        assert cursor.fetchone()[0] == ["a'b", "\\c"]
    with pytest.raises(ZeroDivisionError), bulk.server_side_binding():
        1 / 0  # noqa: B018
    with connection.cursor() as cursor:
        assert type(cursor.cursor) is before


@pytest.mark.postgres
def test_the_copy_path_writes_what_the_ordinary_path_writes(tmp_path, monkeypatch):
    """With every row set going by COPY (the path of large files), an import still gives
    each term its fields, derived columns, links, categories, auto-links, mention rows and
    a revision, and exports back to the same rows."""
    from reversion.models import Version

    monkeypatch.setattr(bulk, "COPY_FROM", 1)
    rows = [
        term_row("serwer", name="Serwer", body="Serwer odpowiada klientowi.",
                 categories=["Sieci"], related=["klient"]),
        term_row("klient", name="Klient", body="Klient łączy się z serwerem.",
                 synonyms=["Klienci"]),
        term_row("sesja", name="Sesja", body="Sesja trwa, a klienci czekają."),
    ]  # fmt: skip
    import_file(write(tmp_path, "t.json", rows))
    serwer, klient, sesja = (Term.objects.get(slug=s) for s in ("serwer", "klient", "sesja"))
    assert serwer.body_html == "<p>Serwer odpowiada klientowi.</p>\n" and serwer.sort_key
    assert klient.synonyms == ["Klienci"] and klient.updated_at and klient.created_at
    assert related_slugs("klient") == ["serwer"]
    assert list(serwer.categories.values_list("name", flat=True)) == ["Sieci"]
    assert 'href="/slownik/klient/"' in serwer.linked_html or "klient" in serwer.linked_html
    assert list(serwer.mentions.values_list("slug", flat=True)) == ["klient"]
    assert list(sesja.mentions.values_list("slug", flat=True)) == ["klient"]
    assert Version.objects.get_for_object(klient).get().field_dict["related"] == [serwer.pk]
    exported = {row["slug"]: row for row in export_terms()}
    assert exported["serwer"]["body"] == rows[0]["body"]
    assert exported["serwer"]["categories"] == ["Sieci"]
    assert Term.objects.create(name="Po imporcie", short_definition="D.").pk > sesja.pk


@pytest.mark.postgres
def test_a_large_import_refreshes_the_statistics_of_the_tables_it_grew(monkeypatch):
    """An import writing `ANALYZE_FROM` terms or more ANALYZEs the term and link tables inside
    its transaction, before reading the written terms back: the planner then sees the table as
    it now is (its own uncommitted rows included), not as it was before the import. A smaller
    import leaves the statistics alone."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def planner_rows() -> float:
        with connection.cursor() as cursor:
            cursor.execute("SELECT reltuples FROM pg_class WHERE oid = 'glossary_term'::regclass")
            return cursor.fetchone()[0]

    monkeypatch.setattr(importing.apply, "ANALYZE_FROM", 3)
    with CaptureQueriesContext(connection) as small:
        import_terms(parse_json(json.dumps([term_row("a"), term_row("b")])))
    assert not [q for q in small.captured_queries if q["sql"].startswith("ANALYZE")]
    before = planner_rows()
    with CaptureQueriesContext(connection) as large:
        import_terms(parse_json(json.dumps([term_row(s) for s in ("c", "d", "e", "f")])))
    analyzed = [q["sql"] for q in large.captured_queries if q["sql"].startswith("ANALYZE")]
    assert len(analyzed) == 1 and '"glossary_term"' in analyzed[0]
    assert planner_rows() == Term.objects.count() == 6 != before
