"""Content-Security-Policy and Permissions-Policy on every page (issue 13, item 7): a strict
policy (no inline script or style without a nonce, no eval, nothing may frame the site),
set by django-csp 4 and django-permissions-policy. The browser proves it works:
tests/glossary/test_browser_csp.py."""

import pytest
from django.test import Client, override_settings

from tests.factories import make_term

pytestmark = pytest.mark.django_db


def _policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


@pytest.mark.parametrize(
    "path", ["/", "/slownik/", "/slownik/mcp/", "/szukaj/?q=mcp", "/admin/login/", "/nie-ma/"]
)
def test_every_page_has_a_strict_policy(client, path):
    """Pages (the 404 page and the admin included) carry the policy: scripts and styles only
    from the site (or a nonce), no 'unsafe-inline'/'unsafe-eval', frame-ancestors 'none',
    no plugins, no <base> hijacking."""
    make_term("MCP", slug="mcp")
    response = client.get(path)
    policy = _policy(response)
    assert policy["default-src"] == ["'self'"]
    for directive in ("script-src", "style-src"):
        assert policy[directive][0] == "'self'"
        assert not {"'unsafe-inline'", "'unsafe-eval'", "*", "https:"} & set(policy[directive])
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["object-src"] == ["'none'"] and policy["base-uri"] == ["'none'"]
    assert policy["form-action"] == ["'self'"]
    assert response["X-Frame-Options"] == "DENY"


def test_a_nonce_is_in_the_header_only_when_a_page_used_one(client, admin_user):
    """django-csp adds `'nonce-…'` only to responses whose template asked for one: the
    application-password page's inline <style> carries the header's nonce."""
    client.force_login(admin_user)
    assert not any(v.startswith("'nonce-") for v in _policy(client.get("/"))["style-src"])
    response = client.post(
        "/admin/api/applicationpassword/add/", {"user": admin_user.pk, "name": "skrypt"}
    )
    if response.status_code == 302:
        response = client.get(response["Location"])
    nonce = next(v for v in _policy(response)["style-src"] if v.startswith("'nonce-"))
    assert f'<style nonce="{nonce[7:-1]}">' in response.content.decode()
    assert ' style="' not in response.content.decode().split("<body")[1]


def test_style_attributes_allowed_are_only_the_sanitizers_alignments(client):
    """The one kind of style attribute a page can carry (a Markdown table cell's alignment,
    the only CSS glossary/markdown.py lets through) is allowed by hash, nothing else."""
    import base64
    import hashlib

    allowed = _policy(client.get("/"))["style-src-attr"]
    assert allowed[0] == "'unsafe-hashes'"
    expected = {
        "'sha256-"
        + base64.b64encode(hashlib.sha256(f"text-align:{side}".encode()).digest()).decode()
        + "'"
        for side in ("left", "right", "center")
    }
    assert set(allowed[1:]) == expected


def test_permissions_policy_turns_off_unused_features(client):
    """Camera, microphone, geolocation, payment, USB… are off for the site and anything it
    embeds."""
    header = client.get("/")["Permissions-Policy"]
    for feature in ("camera=()", "microphone=()", "geolocation=()", "payment=()", "usb=()"):
        assert feature in header


@override_settings(DEBUG=False)
def test_the_500_page_alone_may_use_its_inline_style(db):
    """The self-contained 500 page (no request context, so no nonce) gets `'unsafe-inline'`
    for styles, and still no script."""
    from django.urls import path

    def boom(request):
        raise RuntimeError("test")

    import config.urls

    with override_settings(ROOT_URLCONF=_Urls(config.urls, path("boom/", boom))):
        response = Client(raise_request_exception=False).get("/boom/")
    assert response.status_code == 500
    policy = _policy(response)
    assert policy["style-src"] == ["'unsafe-inline'"]
    assert "'unsafe-inline'" not in policy["script-src"]


class _Urls:
    """A URLconf: the project's, plus one more route, with the project's handlers."""

    def __init__(self, base, extra):
        self.urlpatterns = [extra, *base.urlpatterns]
        self.handler404 = base.handler404
        self.handler500 = base.handler500


# --- The policy text, built once per process (config/csp.py) --------------------------------


def test_the_policy_text_is_built_once_not_per_response(client, monkeypatch):
    """Responses that do not change their policy get the text django-csp builds from the
    settings, built once per process: four pages, two builds (the policy and the report-only
    one), and the very text the library's own path gives."""
    from csp.utils import build_policy

    import config.csp

    calls = []

    def counting(*args, **kwargs):
        calls.append(kwargs.get("report_only", False))
        return build_policy(*args, **kwargs)

    monkeypatch.setattr(config.csp, "_built", None)
    monkeypatch.setattr(config.csp, "build_policy", counting)
    make_term("MCP", slug="mcp")
    headers = [
        client.get(path)["Content-Security-Policy"]
        for path in ("/", "/slownik/", "/slownik/mcp/", "/szukaj/?q=mcp")
    ]
    assert sorted(calls) == [False, True]
    assert set(headers) == {build_policy()}


def test_a_changed_policy_setting_takes_effect_at_once(client):
    """The built text is dropped when the settings change: a response after
    `override_settings` carries the new policy, and one after it the old one again."""
    before = client.get("/")["Content-Security-Policy"]
    with override_settings(CONTENT_SECURITY_POLICY={"DIRECTIVES": {"default-src": ["'none'"]}}):
        assert client.get("/")["Content-Security-Policy"] == "default-src 'none'"
    assert client.get("/")["Content-Security-Policy"] == before


def test_a_response_that_changes_its_policy_takes_the_librarys_path(rf):
    """A response a decorator gave its own policy (`csp_replace`, as the 500 page's) or
    exempted (`csp_exempt`) is answered by django-csp itself, not with the built text."""
    from csp.decorators import csp_exempt, csp_replace
    from django.http import HttpResponse

    from config.csp import CSPMiddleware

    @csp_replace({"img-src": ["'none'"]})
    def replaced(request):
        return HttpResponse("x")

    @csp_exempt()
    def exempt(request):
        return HttpResponse("x")

    for view, check in (
        (replaced, lambda r: "img-src 'none'" in r["Content-Security-Policy"]),
        (exempt, lambda r: "Content-Security-Policy" not in r),
    ):
        request = rf.get("/")
        middleware = CSPMiddleware(view)
        assert check(middleware(request)), view.__name__
