"""Search suggestions in a real browser (Debian's Chromium through Selenium, issue 10): the
home page's box is a WAI-ARIA combobox whose listbox shows the server's suggestions exactly
as ranked, fuzzy and diacritic-free ones included, and a keyboard user picks one."""

import pytest
from django.core.management import call_command
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ec

from tests.browser import (
    csp_violations,
    record_csp_violations,
    screenshot,
    stop_recording_csp_violations,
    wait,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo(db):
    call_command("load_demo", verbosity=0)


def _options(browser):
    listbox = browser.find_element(By.ID, "podpowiedzi-0")
    return [
        o.find_element(By.CLASS_NAME, "suggestion-name").text
        for o in listbox.find_elements(By.CSS_SELECTOR, "[role=option]")
    ]


def _type(browser, text):
    box = wait(browser).until(ec.element_to_be_clickable((By.ID, "szukaj-glowna")))
    box.clear()
    box.send_keys(text)
    wait(browser).until(lambda d: box.get_attribute("aria-expanded") == "true" and _options(d))
    return box


@pytest.mark.parametrize(
    ("typed", "expected", "shot"),
    [
        ("agentow", ["Agent", "OAuth dla agentów", "Agent-readiness", "A2A"], "agentow"),
        ("kontekts", ["Okno kontekstowe", "Context engineering"], "kontekts"),
        ("zrodlo", ["Halucynacja"], "zrodlo"),
    ],
)
def test_suggestions_show_what_the_engine_found(browser, demo, tmp_path, typed, expected, shot):
    """Typing an inflected, mistyped or diacritic-free word lists the engine's suggestions
    (which need not contain the typed text) in its order, each with its definition."""
    browser.get(browser.url("/"))
    box = _type(browser, typed)
    names = _options(browser)
    assert names[: len(expected)] == expected, names
    assert box.get_attribute("role") == "combobox"
    assert box.get_attribute("aria-controls") == "podpowiedzi-0"
    listbox = browser.find_element(By.ID, "podpowiedzi-0")
    assert listbox.get_attribute("role") == "listbox" and listbox.is_displayed()
    assert listbox.find_element(By.CLASS_NAME, "suggestion-definition").text
    screenshot(browser, f"search-suggestions-{shot}", tmp_path)


def test_keyboard_picks_a_suggestion_and_lands_on_the_term(browser, demo, tmp_path):
    """Down arrow makes an option active (aria-activedescendant, aria-selected), Escape
    closes the list, and Enter on an active option opens that term's page."""
    browser.get(browser.url("/"))
    box = _type(browser, "kontekts")
    box.send_keys(Keys.ARROW_DOWN)
    active = box.get_attribute("aria-activedescendant")
    assert active == "podpowiedzi-0-0"
    assert browser.find_element(By.ID, active).get_attribute("aria-selected") == "true"
    box.send_keys(Keys.ARROW_DOWN)
    second = browser.find_element(By.ID, box.get_attribute("aria-activedescendant"))
    expected_name = second.find_element(By.CLASS_NAME, "suggestion-name").text
    screenshot(browser, "search-suggestions-keyboard", tmp_path)
    box.send_keys(Keys.ESCAPE)
    assert box.get_attribute("aria-expanded") == "false"
    assert box.get_attribute("aria-activedescendant") is None
    box.send_keys(Keys.ARROW_DOWN, Keys.ARROW_DOWN, Keys.ENTER)
    wait(browser).until(ec.url_contains("/slownik/"))
    assert browser.find_element(By.TAG_NAME, "h1").text == expected_name


def test_enter_without_an_active_option_submits_the_search(browser, demo, tmp_path):
    """Enter with no active option submits the form: the search page with its exact-match
    card."""
    browser.get(browser.url("/"))
    box = _type(browser, "MCP")
    box.send_keys(Keys.ENTER)
    wait(browser).until(ec.url_contains("/szukaj/"))
    card = wait(browser).until(ec.visibility_of_element_located((By.CLASS_NAME, "exact-match")))
    assert "MCP" in card.text
    screenshot(browser, "search-page-exact-card", tmp_path)


def test_a_weak_answer_says_so_and_offers_the_corrected_search(browser, demo, tmp_path):
    """A query whose best term matches only some words, one of them mistyped: the page shows
    "Czy chodziło o: <corrected query>?" as a link, the note that these are the closest
    terms and a "słabe dopasowanie" label on each, without breaking its Content-Security-Policy;
    the link searches the corrected query."""
    handle = record_csp_violations(browser)
    browser.get(browser.url("/szukaj/?q=halucynajca+modelu+kwiatowego"))
    note = wait(browser).until(ec.visibility_of_element_located((By.CLASS_NAME, "weak-note")))
    assert note.text == "Nie znaleźliśmy dokładnego dopasowania — oto najbliższe pojęcia."
    did_you_mean = browser.find_element(By.CLASS_NAME, "did-you-mean")
    assert did_you_mean.text == "Czy chodziło o: halucynacja modelu kwiatowego?"
    terms = browser.find_elements(By.CSS_SELECTOR, "#wyniki-pojecia + .weak-note + ul > li")
    assert terms and all(t.find_element(By.CLASS_NAME, "weak-label").is_displayed() for t in terms)
    screenshot(browser, "search-page-weak-did-you-mean", tmp_path)
    assert csp_violations(browser) == []
    stop_recording_csp_violations(browser, handle)
    did_you_mean.find_element(By.TAG_NAME, "a").click()
    wait(browser).until(ec.url_contains("q=halucynacja%20modelu%20kwiatowego"))
    box = browser.find_element(By.ID, "szukaj-strona")
    assert box.get_attribute("value") == "halucynacja modelu kwiatowego"
