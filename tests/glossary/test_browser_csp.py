"""The Content-Security-Policy in a real browser (Debian's Chromium, tests/browser.py): the
strict policy (config/settings.py, CONTENT_SECURITY_POLICY) is enforced on every page, and
what readers and editors use keeps working under it with no violation reported — the search
combobox, the term tooltips, a Markdown table's alignment, the admin (login page, change
form and its live preview). Each test records `securitypolicyviolation` events from before
the page's scripts run and reads the console log (issue 13, item 7)."""

import pytest
from django.contrib.auth.models import User
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ec

from glossary import autolink, services
from glossary.models import Article, Status, Term
from tests.browser import (
    csp_violations,
    record_csp_violations,
    screenshot,
    stop_recording_csp_violations,
    wait,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BODY = """Agent wysyła żądania do **serwera MCP** przez JSON-RPC.

| pole | znaczenie |
|:-----|----------:|
| id   | numer     |
"""


@pytest.fixture
def csp(browser):
    handle = record_csp_violations(browser)
    yield browser
    stop_recording_csp_violations(browser, handle)


@pytest.fixture
def article(db):
    autolink.clear_cache()
    for name, slug, definition in [
        ("Serwer MCP", "serwer-mcp", "Program, który udostępnia modelom narzędzia przez MCP."),
        ("MCP", "mcp", "Model Context Protocol: protokół łączenia modeli z narzędziami."),
        ("JSON-RPC", "json-rpc", "Lekki protokół zdalnego wywoływania procedur w JSON."),
    ]:
        services.save_term(Term(name=name, slug=slug, short_definition=definition,
                                status=Status.PUBLISHED))  # fmt: skip
    return services.save_article(
        Article(title="Agent i serwer", slug="agent-i-serwer", lead="Krótko.", body=BODY,
                status=Status.PUBLISHED)
    )  # fmt: skip


def test_the_policy_is_enforced_in_the_browser(csp, article):
    """The header is a real, enforced policy: an inline script injected into the page is
    refused and reported (so the absence of reports elsewhere means something)."""
    csp.get(csp.url(article.get_absolute_url()))
    csp.execute_script(
        "var s = document.createElement('script'); s.textContent = 'window.__ran = 1;';"
        "document.body.appendChild(s);"
    )
    assert csp.execute_script("return window.__ran || 0;") == 0
    assert any("script-src" in v for v in csp_violations(csp))


def test_reader_features_work_without_violations(csp, article, tmp_path):
    """Search suggestions (the combobox), a term tooltip and a table's alignment work on
    pages under the policy, with no violation."""
    csp.get(csp.url("/"))
    box = wait(csp).until(ec.element_to_be_clickable((By.ID, "szukaj-glowna")))
    box.send_keys("serwe")
    wait(csp).until(lambda d: box.get_attribute("aria-expanded") == "true")
    options = csp.find_elements(By.CSS_SELECTOR, "#podpowiedzi-0 [role=option]")
    assert "Serwer MCP" in options[0].text
    assert csp_violations(csp) == []

    csp.get(csp.url(article.get_absolute_url()))
    link = wait(csp).until(
        ec.presence_of_element_located((By.CSS_SELECTOR, 'a.term-link[data-term="serwer-mcp"]'))
    )
    csp.execute_script("arguments[0].focus();", link)
    tooltip = wait(csp).until(
        lambda d: d.find_element(By.ID, link.get_attribute("aria-describedby"))
    )
    wait(csp).until(lambda d: tooltip.is_displayed())
    assert "udostępnia modelom" in tooltip.text
    cell = csp.find_elements(By.CSS_SELECTOR, ".prose td, article td, td")[-1]
    assert cell.value_of_css_property("text-align") == "right"  # the hashed style attribute
    screenshot(csp, "csp-article-tooltip", tmp_path)
    assert csp_violations(csp) == []


def test_admin_works_without_violations(csp, article, tmp_path):
    """The admin's login form (a real login), changelist and change form with the live
    Markdown preview work under the policy, with no violation."""
    User.objects.create_superuser("ewa", "ewa@example.com", "tajne-haslo-42")
    csp.get(csp.url("/admin/login/"))
    wait(csp).until(ec.element_to_be_clickable((By.ID, "id_username"))).send_keys("ewa")
    csp.find_element(By.ID, "id_password").send_keys("tajne-haslo-42", Keys.ENTER)
    wait(csp).until(ec.url_matches(r"/admin/$"))
    assert csp_violations(csp) == []

    csp.get(csp.url("/admin/glossary/article/"))
    wait(csp).until(ec.presence_of_element_located((By.ID, "result_list")))
    assert csp_violations(csp) == []

    csp.get(csp.url(f"/admin/glossary/article/{article.pk}/change/"))
    body = wait(csp).until(ec.element_to_be_clickable((By.ID, "id_body")))
    preview = wait(csp).until(ec.presence_of_element_located((By.ID, "podglad")))
    wait(csp).until(lambda b: preview.get_attribute("data-rendered"))
    body.send_keys(Keys.CONTROL, "a")
    body.send_keys(Keys.DELETE)
    body.send_keys("# Nagłówek pod CSP\n\nSerwer MCP odpowiada.")
    wait(csp).until(lambda b: "Nagłówek pod CSP" in preview.get_attribute("innerHTML"))
    screenshot(csp, "csp-admin-preview", tmp_path)
    assert csp_violations(csp) == []
