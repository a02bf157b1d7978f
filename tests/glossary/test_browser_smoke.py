"""The site in a real browser: a reader's first visit works end to end (page, search form,
result page). Other browser tests build on the same fixtures (tests/browser.py)."""

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ec

from tests.browser import screenshot, wait
from tests.factories import make_term

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_reader_searches_from_the_home_page_and_reaches_the_term(browser, tmp_path):
    """A visitor types a term's name into the home page's box, submits it with Enter and
    reaches that term's page with its definition (the search and term views in a browser)."""
    make_term("Server-Sent Events", slug="sse", short_definition="Strumień zdarzeń z serwera.")
    browser.get(browser.url("/"))
    box = wait(browser).until(ec.element_to_be_clickable((By.ID, "szukaj-glowna")))
    box.send_keys("Server-Sent Events", Keys.ENTER)
    wait(browser).until(ec.url_contains("/s"))
    wait(browser).until(ec.text_to_be_present_in_element((By.TAG_NAME, "main"), "Strumień zdarzeń"))
    assert "Server-Sent Events" in browser.find_element(By.TAG_NAME, "h1").text or (
        "Server-Sent Events" in browser.find_element(By.TAG_NAME, "main").text
    )
    assert screenshot(browser, "smoke-search", tmp_path).stat().st_size > 0
