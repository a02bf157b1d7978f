"""Auto-linking, the admin preview and revisions in a real browser (Debian's Chromium via
Selenium, tests/browser.py): what readers and editors actually see and do.

`SAVE_SCREENSHOTS=1` refreshes the pictures in docs/screenshots/ shown in the README."""

# ruff: noqa: E501 (definitions and scripts read better on one line)

import pytest
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ec

from glossary import autolink, services
from glossary.models import Article, Status, Term
from tests.browser import screenshot, wait

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BODY = """Agent łączy się z **serwerem MCP** i prosi o listę narzędzi. Odpowiedzi przychodzą
w formacie JSON-RPC, a powiadomienia — strumieniem SSE.

## Jak to wygląda na łączu

Każde żądanie protokołu MCP to jeden obiekt JSON-RPC z polem `id`."""


@pytest.fixture
def article(db):
    autolink.clear_cache()
    for name, slug, definition, synonyms in [
        ("Serwer MCP", "serwer-mcp", "Program, który udostępnia modelom narzędzia, zasoby i prompty przez protokół MCP.", ["serwer"]),
        ("MCP", "mcp", "Model Context Protocol: otwarty protokół łączenia modeli z narzędziami i danymi.", []),
        ("JSON-RPC", "json-rpc", "Lekki protokół zdalnego wywoływania procedur w JSON.", []),
        ("Agent", "agent", "Program, który z pomocą modelu językowego sam wykonuje zadania.", ["agenci"]),
        ("SSE", "sse", "Server-Sent Events: jednokierunkowy strumień zdarzeń z serwera przez HTTP.", []),
    ]:  # fmt: skip
        services.save_term(Term(name=name, slug=slug, short_definition=definition,
                                synonyms=synonyms, status=Status.PUBLISHED))  # fmt: skip
    return services.save_article(
        Article(title="Jak agent rozmawia z serwerem MCP", slug="agent-i-serwer",
                lead="Krótki przewodnik po wiadomościach.", body=BODY, status=Status.PUBLISHED)
    )  # fmt: skip


def tooltip_of(browser, link):
    return browser.find_element(By.ID, link.get_attribute("aria-describedby"))


def test_focusing_a_linked_term_shows_its_definition(browser, article, tmp_path):
    """The article links "serwerem MCP" to its term; Tab focus shows a role=tooltip with the
    definition (the link is described by it), Escape hides it, hovering shows it again."""
    browser.get(browser.url(article.get_absolute_url()))
    link = wait(browser).until(
        ec.presence_of_element_located((By.CSS_SELECTOR, 'a.term-link[data-term="serwer-mcp"]'))
    )
    assert link.text == "serwerem MCP"
    wait(browser).until(lambda b: link.get_attribute("aria-describedby"))
    # The tooltip replaces the native title (which would show the definition twice).
    assert browser.execute_script("return arguments[0].hasAttribute('title')", link) is False
    tip = tooltip_of(browser, link)
    assert tip.get_attribute("role") == "tooltip" and not tip.is_displayed()
    for _ in range(80):  # the keyboard, as a reader uses it
        if browser.switch_to.active_element == link:
            break
        ActionChains(browser).send_keys(Keys.TAB).perform()
    assert browser.switch_to.active_element == link
    wait(browser).until(lambda b: tip.is_displayed())
    assert "udostępnia modelom narzędzia" in tip.text
    screenshot(browser, "article-tooltip", tmp_path)
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser).until(lambda b: not tip.is_displayed())
    other = browser.find_element(By.CSS_SELECTOR, 'a.term-link[data-term="json-rpc"]')
    ActionChains(browser).move_to_element(other).perform()
    wait(browser).until(lambda b: tooltip_of(b, other).is_displayed())
    assert "zdalnego wywoływania" in tooltip_of(browser, other).text


def test_a_tap_shows_the_definition_and_a_second_tap_follows_the_link(browser, article):
    """On a touch screen the first tap shows the tooltip (no navigation), the second opens
    the term's page."""
    browser.get(browser.url(article.get_absolute_url()))
    link = wait(browser).until(
        ec.presence_of_element_located((By.CSS_SELECTOR, 'a.term-link[data-term="agent"]'))
    )
    wait(browser).until(lambda b: link.get_attribute("aria-describedby"))
    box = browser.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2];",
        link,
    )

    def tap():
        point = {"x": box[0], "y": box[1]}
        browser.execute_cdp_cmd(
            "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]}
        )
        browser.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    browser.execute_cdp_cmd(
        "Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1}
    )
    try:
        tap()
        wait(browser).until(lambda b: tooltip_of(b, link).is_displayed())
        assert browser.current_url.endswith(article.get_absolute_url())
        tap()
        wait(browser).until(ec.url_contains("/slownik/agent/"))
    finally:
        browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})


def test_without_javascript_the_link_carries_the_definition_in_title(client, article):
    """The stored HTML is a plain link with the definition in `title` (no script needed)."""
    text = client.get(article.get_absolute_url()).content.decode()
    assert (
        'data-term="agent" title="Program, który z pomocą modelu językowego sam wykonuje zadania.">Agent</a>'
        in text
    )


def log_in(browser, user):
    """Give the browser a logged-in session cookie for `user` (no login form needed)."""
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = (
        settings.AUTHENTICATION_BACKENDS[0]
        if hasattr(settings, "AUTHENTICATION_BACKENDS")
        else "django.contrib.auth.backends.ModelBackend"
    )
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    browser.get(browser.url("/admin/login/"))
    browser.add_cookie(
        {"name": settings.SESSION_COOKIE_NAME, "value": session.session_key, "path": "/"}
    )


def test_the_admin_preview_updates_as_the_editor_types(browser, article, tmp_path):
    """Typing Markdown into the body updates the preview beside it with the page's own
    rendering: a heading and an auto-linked term."""
    editor = User.objects.create_superuser(
        "ewa", "ewa@example.com", "x", first_name="Ewa", last_name="Nowak"
    )
    log_in(browser, editor)
    browser.get(browser.url(f"/admin/glossary/article/{article.pk}/change/"))
    body = wait(browser).until(ec.element_to_be_clickable((By.ID, "id_body")))
    preview = wait(browser).until(ec.presence_of_element_located((By.ID, "podglad")))
    wait(browser).until(lambda b: preview.get_attribute("data-rendered"))
    body.send_keys(Keys.CONTROL, "a")
    body.send_keys(Keys.DELETE)
    body.send_keys("# Nowy śródtytuł\n\nAgenci wysyłają żądania do serwera MCP.")
    wait(browser).until(lambda b: "Nowy śródtytuł" in preview.get_attribute("innerHTML"))
    heading = preview.find_element(By.TAG_NAME, "h2")
    assert heading.text == "Nowy śródtytuł"
    links = {
        a.get_attribute("data-term") for a in preview.find_elements(By.CSS_SELECTOR, "a.term-link")
    }
    assert links == {"agent", "serwer-mcp"}
    browser.execute_script(
        "document.getElementById('id_body').scrollIntoView({block: 'start'}); window.scrollBy(0, -60);"
    )
    screenshot(browser, "admin-preview", tmp_path)


def test_restoring_a_revision_brings_the_old_text_back_on_the_page(browser, article, tmp_path):
    """The history shows the diff between revisions; "Przywróć tę wersję" puts the old text
    back, and the public page shows it."""
    editor = User.objects.create_superuser(
        "ewa", "ewa@example.com", "x", first_name="Ewa", last_name="Nowak"
    )
    article.body = "Zupełnie nowy tekst, bez starych akapitów.\n\n" + BODY.split("\n\n")[0].replace(
        "listę narzędzi", "spis narzędzi"
    )
    services.save_article(article, editor=editor, comment="Zmieniono: Treść (Markdown).")
    log_in(browser, editor)
    browser.get(browser.url(f"/admin/glossary/article/{article.pk}/history/"))
    wait(browser).until(ec.presence_of_element_located((By.CSS_SELECTOR, ".revision-diff ins")))
    screenshot(browser, "revision-diff", tmp_path)
    buttons = browser.find_elements(By.XPATH, "//button[normalize-space()='Przywróć tę wersję']")
    assert len(buttons) == 1
    buttons[0].click()
    wait(browser).until(ec.presence_of_element_located((By.CSS_SELECTOR, ".messagelist .success")))
    assert "Przywrócono wersję z" in browser.find_element(By.CSS_SELECTOR, ".messagelist").text
    browser.get(browser.url(article.get_absolute_url()))
    text = wait(browser).until(ec.presence_of_element_located((By.CSS_SELECTOR, ".prose"))).text
    assert "Jak to wygląda na łączu" in text and "Zupełnie nowy tekst" not in text
