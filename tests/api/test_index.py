"""Discovery: the /wp-json/ index and namespace index, OPTIONS, the OpenAPI document, the
Link headers and <link> tags of pages, and the WSGI routing that gives REST routes the site's
middleware while the MCP endpoint keeps its lean handler."""

import pytest
from django.conf import settings

from tests.factories import make_article, make_draft_term, make_term

from .conftest import API

pytestmark = pytest.mark.django_db


def test_index_lists_site_namespaces_authentication_and_routes(client):
    """GET /wp-json/ answers like WordPress's index: name, description, url, home,
    namespaces, application-password authentication, and every route with its methods and
    arguments, the MCP endpoint included; the OpenAPI document is linked (service-desc)."""
    data = client.get("/wp-json/").json()
    assert data["name"] == settings.SITE_NAME and data["description"]
    assert data["url"] == data["home"] == settings.SITE_URL
    assert data["namespaces"] == ["webflux/v1"]
    auth = data["authentication"]["application-passwords"]["endpoints"]["authorization"]
    assert auth.endswith("/admin/api/applicationpassword/add/")
    routes = data["routes"]
    for route in ("/webflux/v1", "/webflux/v1/terms", r"/webflux/v1/terms/(?P<id>[\d]+)",
                  "/webflux/v1/articles", "/webflux/v1/categories", "/webflux/v1/series",
                  "/webflux/v1/search", "/webflux/v1/mcp"):  # fmt: skip
        assert route in routes, route
    terms = routes["/webflux/v1/terms"]
    assert terms["methods"] == ["GET", "POST"]
    get_args = terms["endpoints"][0]["args"]
    assert get_args["per_page"] == {**get_args["per_page"], "maximum": 100, "default": 10,
                                    "type": "integer", "required": False}  # fmt: skip
    assert get_args["orderby"]["enum"][0] == "title" and "relevance" in get_args["orderby"]["enum"]
    post_args = terms["endpoints"][1]["args"]
    assert terms["endpoints"][1]["methods"] == ["POST"] and "title" in post_args
    detail = routes[r"/webflux/v1/terms/(?P<id>[\d]+)"]
    assert set(detail["methods"]) == {"GET", "POST", "PUT", "PATCH", "DELETE"}
    assert "_links" not in detail and terms["_links"]["self"][0]["href"].endswith(f"{API}/terms")
    assert routes["/webflux/v1/mcp"]["methods"] == ["POST", "GET", "DELETE"]
    service = data["_links"]["service-desc"][0]
    assert service["href"].endswith(f"{API}/openapi") and "openapi" in service["type"]


@pytest.mark.parametrize("path", [API, f"{API}/"])
def test_namespace_index(client, path):
    """GET /wp-json/webflux/v1 lists the namespace's routes (REST and MCP)."""
    data = client.get(path).json()
    assert data["namespace"] == "webflux/v1"
    assert "/webflux/v1/terms" in data["routes"] and "/webflux/v1/mcp" in data["routes"]


def test_options_returns_the_route_schema_and_arguments(client):
    """OPTIONS on a route answers its methods, per-method arguments and the resource's JSON
    Schema with WordPress's `context` lists, plus CORS preflight headers."""
    response = client.options(f"{API}/terms", HTTP_ORIGIN="https://app.example",
                              HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST")  # fmt: skip
    data = response.json()
    assert response.status_code == 200 and data["methods"] == ["GET", "POST"]
    schema = data["schema"]
    assert schema["$schema"].startswith("http://json-schema.org/") and schema["title"] == "term"
    props = schema["properties"]
    assert props["id"]["context"] == ["view", "embed", "edit"] and props["id"]["readonly"]
    assert props["content"]["context"] == ["view", "edit"]
    assert props["last_editor"]["context"] == ["edit"]
    assert props["last_editor"]["type"] == ["integer", "null"]
    assert props["english_name"]["context"] == ["view", "edit"]
    assert props["english_definition"]["type"] == "string"
    assert props["asked_as"]["context"] == ["edit"]
    assert "POST" in response["Access-Control-Allow-Methods"]
    assert "Authorization" in response["Access-Control-Allow-Headers"]
    assert response["Access-Control-Allow-Origin"] == "*"


def test_openapi_document_describes_every_route(client):
    """The OpenAPI 3 document lists each route and method, the Basic-auth scheme, the error
    object and the pagination headers."""
    doc = client.get(f"{API}/openapi").json()
    assert doc["openapi"].startswith("3.")
    paths = doc["paths"]
    assert set(paths[f"{API}/terms"]) >= {"get", "post"}
    assert set(paths[f"{API}/terms/{{id}}"]) >= {"get", "put", "patch", "post", "delete"}
    assert doc["components"]["securitySchemes"]["applicationPassword"]["scheme"] == "basic"
    listing = paths[f"{API}/terms"]["get"]["responses"]["200"]
    assert {"X-WP-Total", "X-WP-TotalPages"} <= set(listing["headers"])
    error = paths[f"{API}/terms"]["get"]["responses"]["400"]["content"]["application/json"]
    assert error["schema"]["$ref"].endswith("/Error")
    assert "## Link relations" in doc["info"]["description"]


def test_every_page_links_the_api_and_entries_their_rest_object(client):
    """Pages send `Link: <…/wp-json/>; rel="https://api.w.org/"` and the matching <link> tag;
    term and article pages also name their REST object as rel=alternate application/json —
    served from the page cache too."""
    term = make_term("MCP")
    article = make_article("Artykuł", terms=[term])
    root = f'<{settings.SITE_URL}/wp-json/>; rel="https://api.w.org/"'
    for path in ("/", "/slownik/", "/artykuly/", "/szukaj/?q=x"):
        response = client.get(path)
        assert root in response["Link"], path
        assert b'<link rel="https://api.w.org/"' in response.content
    for _ in range(2):  # a fresh render, then the cached page
        page = client.get(f"/slownik/{term.slug}/")
        href = f"{settings.SITE_URL}{API}/terms/{term.pk}"
        assert f'<{href}>; rel="alternate"; type="application/json"' in page["Link"]
        assert (
            f'<link rel="alternate" type="application/json" href="{href}">'.encode() in page.content
        )
    article_page = client.get(f"/artykuly/{article.slug}/")
    assert f"{API}/articles/{article.pk}>" in article_page["Link"]
    assert client.get(f"{API}/terms/{term.pk}").status_code == 200
    assert "Link" not in client.get(f"{API}/terms/{term.pk}")


def test_bad_host_on_rest_routes_is_a_wordpress_error(client):
    """A Host outside ALLOWED_HOSTS on a REST route gets WordPress's JSON error, not HTML."""
    response = client.get(f"{API}/terms", HTTP_HOST="evil.example")
    assert response.status_code == 400 and response.json()["code"] == "rest_invalid_host"


def test_rest_routes_take_their_handler_and_mcp_the_lean_one(monkeypatch, transactional_db):
    """config/wsgi.py: the MCP endpoint keeps its lean handler; the rest of /wp-json/ (the REST
    API, its index, unknown routes) gets the REST handler, pages the site's."""
    from config import wsgi
    from tests.wsgi_client import PING, call

    seen = []
    for name in ("mcp_application", "rest_application", "site_application"):
        handler = getattr(wsgi, name)
        monkeypatch.setattr(
            wsgi, name, lambda env, sr, h=handler, n=name: seen.append(n) or h(env, sr)
        )
    status, headers, body = call("/wp-json/webflux/v1/terms")
    assert status == 200 and seen == ["rest_application"] and body.startswith(b"[")
    assert headers["content-length"] == str(len(body)) and "x-wp-total" in headers
    assert call("/wp-json/")[0] == 200 and seen[-1] == "rest_application"
    missing = call("/wp-json/nothing")
    assert missing[0] == 404 and b"rest_no_route" in missing[2]
    bad_host = call("/wp-json/webflux/v1/terms", host="evil.example")
    assert bad_host[0] == 400 and b"rest_invalid_host" in bad_host[2]
    status, _headers, _body = call(
        "/wp-json/webflux/v1/mcp", method="POST", body=PING, accept="application/json"
    )
    assert status == 200 and seen[-1] == "mcp_application"
    assert call("/")[0] == 200 and seen[-1] == "site_application"


def session_cookie(user) -> str:
    """The Cookie header of a browser logged in as `user` (a session in the database)."""
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session["_auth_user_id"] = str(user.pk)
    session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    session["_auth_user_hash"] = user.get_session_auth_hash()
    session.create()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}"


def test_rest_requests_with_and_without_a_session_cookie(editor, editor_auth, transactional_db):
    """Through config/wsgi.py: a REST request carrying no session cookie (a reader; a script
    with an application password, HTTP Basic, which DRF checks itself) sees public content or
    what its password allows; a request with a session cookie is logged in."""

    from tests.wsgi_client import call

    draft = make_draft_term("Szkic bez sesji")

    def query(path_and_query):
        path, _, query = path_and_query.partition("?")
        return path, {"QUERY_STRING": query}

    path, environ = query(f"{API}/terms?context=edit")
    status, _headers, body = call(path, environ=environ)
    assert status == 401
    status, _headers, body = call(f"{API}/terms", cookie="motyw=ciemny")
    assert status == 200 and b"Szkic bez sesji" not in body
    token = editor_auth["HTTP_AUTHORIZATION"]
    path, environ = query(f"{API}/terms?context=edit&status=draft")
    status, _headers, body = call(path, environ=environ, authorization=token)
    assert status == 200 and b"Szkic bez sesji" in body
    status, _headers, body = call(
        f"{API}/terms", method="POST", body=b'{"title": "Przez Basic"}', authorization=token
    )
    assert status == 201
    cookie = f"motyw=ciemny; {session_cookie(editor)}"
    path, environ = query(f"{API}/terms/{draft.pk}?context=edit")
    status, _headers, body = call(path, environ=environ, cookie=cookie)
    assert status == 200 and b"Szkic bez sesji" in body


def test_session_writes_need_csrf_through_the_rest_handler(editor, transactional_db):
    """Under the REST handler (no CsrfViewMiddleware) DRF itself refuses a session write
    without the CSRF token."""

    from tests.wsgi_client import call

    cookie = session_cookie(editor)
    status, _headers, body = call(
        f"{API}/terms", method="POST", body=b'{"title": "Z sesji"}', cookie=cookie
    )
    assert status == 403 and b"CSRF" in body
    token = "a" * 32
    status, _headers, body = call(
        f"{API}/terms", method="POST", body=b'{"title": "Z sesji"}',
        cookie=f"{cookie}; csrftoken={token}", x_csrftoken=token,
    )  # fmt: skip
    assert status == 201, body


def test_entries_link_their_revision_routes_which_the_index_lists(client):
    """Terms and articles carry `version-history` to their revisions route, and the index
    lists both revision routes (GET only) with their arguments, WordPress style."""
    term, article = make_term("Z historią"), make_article("Z historią")
    for kind, pk in (("terms", term.pk), ("articles", article.pk)):
        href = client.get(f"{API}/{kind}/{pk}").json()["_links"]["version-history"][0]["href"]
        assert href.endswith(f"{API}/{kind}/{pk}/revisions")
    routes = client.get("/wp-json/").json()["routes"]
    listing = routes[r"/webflux/v1/terms/(?P<id>[\d]+)/revisions"]
    assert listing["methods"] == ["GET"] and "per_page" in listing["endpoints"][0]["args"]
    assert r"/webflux/v1/articles/(?P<id>[\d]+)/revisions/(?P<rev_id>[\d]+)" in routes
