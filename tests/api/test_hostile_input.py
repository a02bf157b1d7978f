"""Bad input on every REST route is a 4xx in WordPress's error shape, never a 500 (STYLE §16:
strings that reach SQL are checked at the edge; PostgreSQL text cannot hold NUL). The table
has one row per route the api app declares (a test fails when a route is added without one);
each row sends a NUL character where that route reads a string: query parameters, the path,
the JSON body. Free search text is the one place NUL is cleaned rather than refused (it
becomes a space, as on the search page: tests/api/test_read.py).
"""

import json

import pytest
from django.test import Client

from api import urls
from tests.factories import make_article, make_category, make_term

from .conftest import API

pytestmark = pytest.mark.django_db

NUL = "mcp\x00"


@pytest.fixture
def ids(db):
    term = make_term("MCP", short_definition="Model Context Protocol.")
    category = make_category("Protokoły")
    article = make_article("O MCP", lead="Lead.", terms=[term])
    return {"term": term.pk, "article": article.pk, "category": category.pk}


# route name → (HTTP method, path, query or JSON body, the parameter the answer must name;
# None where the NUL is in the path and the answer is a 404 route/object error).
ROUTES = {
    "index": ("get", "/wp-json/", {"context": NUL}, "context"),
    "namespace": ("get", f"{API}/", {"context": NUL}, "context"),
    "openapi": ("get", f"{API}/openapi", {"context": NUL}, "context"),
    "types": ("get", f"{API}/types", {"context": NUL}, "context"),
    "type": ("get", f"{API}/types/term", {"_fields": NUL}, "_fields"),
    "term-list": ("get", f"{API}/terms", {"slug": NUL}, "slug"),
    "term-detail": ("get", f"{API}/terms/{{term}}", {"context": NUL}, "context"),
    "article-list": ("get", f"{API}/articles", {"orderby": NUL}, "orderby"),
    "article-detail": ("get", f"{API}/articles/{{article}}", {"_embed": NUL}, "_embed"),
    "category-list": ("get", f"{API}/categories", {"slug": NUL}, "slug"),
    "category-detail": ("get", f"{API}/categories/{{category}}", {"context": NUL}, "context"),
    "series-list": ("get", f"{API}/series", {"order": NUL}, "order"),
    "series-detail": ("get", f"{API}/series/%00", {}, None),
    "search-list": ("get", f"{API}/search", {"type": NUL}, "type"),
    # Revisions are editors-only: an anonymous NUL gets the 401 before any parameter is read.
    "term-revisions-list": ("get", f"{API}/terms/{{term}}/revisions", {"context": NUL}, None),
    "term-revisions-detail": ("get", f"{API}/terms/{{term}}/revisions/%00", {}, None),
    "article-revisions-list": ("get", f"{API}/articles/{{article}}/revisions", {"page": NUL}, None),
    "article-revisions-detail": ("get", f"{API}/articles/{{article}}/revisions/%00", {}, None),
    "no-route": ("get", "/wp-json/nic/%00", {}, None),
}

# Writes, with an editor's application password: every string field of the body.
WRITES = [
    ("post", f"{API}/terms", {"title": NUL}, "title"),
    ("post", f"{API}/terms", {"title": "Nowe", "slug": NUL}, "slug"),
    ("post", f"{API}/terms", {"title": "Nowe", "content": NUL}, "content"),
    ("post", f"{API}/terms", {"title": "Nowe", "excerpt": NUL}, "excerpt"),
    ("post", f"{API}/terms/{{term}}", {"title": NUL}, "title"),
    ("patch", f"{API}/terms/{{term}}", {"status": NUL}, "status"),
    ("post", f"{API}/articles", {"title": "Nowy", "content": NUL}, "content"),
    ("put", f"{API}/articles/{{article}}", {"title": NUL}, "title"),
    ("delete", f"{API}/terms/{{term}}?force=mcp%00", None, "force"),
]


def _send(client, method, path, data, ids, **headers):
    path = path.format(**ids)
    if method == "get":
        return client.get(path, data, **headers)
    body = json.dumps(data) if data is not None else ""
    return getattr(client, method)(path, body, content_type="application/json", **headers)


def _refused(response, param):
    assert 400 <= response.status_code < 500, response.content
    body = response.json()
    assert body["code"].startswith("rest_") and body["message"], body
    assert body["data"]["status"] == response.status_code
    if param is not None:
        assert response.status_code == 400 and body["code"] == "rest_invalid_param", body
        assert param in body["data"]["params"], body


def test_every_route_has_a_row():
    """A route added to api/urls.py gets a row here before it ships."""
    names = {p.name for p in urls.urlpatterns if getattr(p, "name", None)}
    names |= {p.name for p in urls.router.urls}
    assert names == set(ROUTES)


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_nul_on_every_route_is_a_wordpress_400(client, ids, route):
    """Every route answers a NUL in what it reads with a 4xx in WordPress's shape naming the
    parameter (400 `rest_invalid_param`), never a 500."""
    method, path, data, param = ROUTES[route]
    _refused(_send(client, method, path, data, ids), param)


@pytest.mark.parametrize(
    ("method", "path", "data", "param"), WRITES, ids=[f"{m} {d}" for m, _p, d, _n in WRITES]
)
def test_nul_in_a_write_is_a_wordpress_400(editor_auth, ids, method, path, data, param):
    """Writes: a NUL in any string of the body (or the query) is 400 naming the field, and
    nothing is saved."""
    from glossary.models import Term

    before = list(Term.objects.values_list("name", "slug", "status"))
    _refused(_send(Client(), method, path, data, ids, **editor_auth), param)
    assert list(Term.objects.values_list("name", "slug", "status")) == before


def test_nul_in_a_json_key_or_a_broken_body_is_a_400(editor_auth, ids):
    """A NUL in a key of the JSON body, or a body that is not JSON, is a 400, never a 500."""
    for body in ('{"tit\\u0000le": "x"}', "{not json", '"\\u0000"'):
        response = Client().post(
            f"{API}/terms", body, content_type="application/json", **editor_auth
        )
        assert response.status_code == 400, (body, response.content)
        assert response.json()["code"].startswith("rest_")


@pytest.mark.parametrize(
    ("body", "kind"),
    [("[1, 2]", "tablica"), ('"x"', "tekst"), ("3", "liczba"), ("true", "wartość logiczna"),
     ("null", "null")],
)  # fmt: skip
def test_a_body_that_is_not_an_object_says_what_it_is(editor_auth, ids, body, kind):
    """A JSON body that is not an object is 400 `rest_invalid_param` (tests/api/test_write.py)
    whose detail says in words what was sent, not Python's type name."""
    response = Client().post(f"{API}/terms", body, content_type="application/json", **editor_auth)
    assert response.status_code == 400, response.content
    data = response.json()
    assert data["code"] == "rest_invalid_param", data
    assert data["data"]["params"]["body"].endswith(f"a jest: {kind}."), data


@pytest.mark.parametrize("method", ["post", "patch", "put"])
@pytest.mark.parametrize(
    "shape", ["[" * 5000 + "]" * 5000, '{"title": ' + "[" * 5000 + "]" * 5000 + "}"]
)
def test_json_nested_too_deeply_is_a_400_not_a_500(editor_auth, ids, method, shape):
    """A body nested thousands of levels deep (2 KB, far under the size limit) is 400
    `rest_invalid_json` on every write, not a RecursionError 500, and changes nothing."""
    from glossary.models import Term

    before = list(Term.objects.values_list("name", "slug", "status"))
    path = f"{API}/terms" if method == "post" else f"{API}/terms/{ids['term']}"
    response = getattr(Client(), method)(
        path, shape, content_type="application/json", **editor_auth
    )
    assert response.status_code == 400, response.content[:300]
    assert response.json()["code"] == "rest_invalid_json"
    assert list(Term.objects.values_list("name", "slug", "status")) == before


@pytest.mark.parametrize("value", ["mcp", "a\ud800b", "\udfff", "ok\ud83d\ude00", "\U0001f600"])
def test_the_search_parameters_surrogate_check_is_drfs(value):
    """The `search` parameter refuses surrogate characters with DRF's own message and code
    (a regex scan instead of DRF's loop over every character): same verdict, same words."""
    from rest_framework.exceptions import ValidationError
    from rest_framework.validators import ProhibitSurrogateCharactersValidator

    from api.params import NoSurrogates

    def verdict(validator):
        try:
            validator(value)
        except ValidationError as exc:
            return exc.detail
        return None

    assert verdict(NoSurrogates()) == verdict(ProhibitSurrogateCharactersValidator())
