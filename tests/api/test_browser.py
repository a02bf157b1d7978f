"""An editor in a real browser (Debian's Chromium): creates an application password in the
admin, sees it once, and a script uses it to write a draft through the REST API."""

import base64
import json
import urllib.request

import pytest
from django.contrib.auth.models import User
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec

from tests.browser import screenshot, wait

from .conftest import API, editors_group

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_editor_creates_an_application_password_and_a_script_writes_with_it(
    browser, live_server, settings, tmp_path
):
    """Admin → Hasła aplikacji → Dodaj: the page shows the new password once; Basic auth with
    it creates a draft stamped with the editor."""
    settings.DEBUG = True  # the live server speaks plain HTTP on loopback
    user = User.objects.create_user("redaktorka", password="Hasło-do-panelu-123", is_staff=True)
    user.groups.add(editors_group())
    browser.get(browser.url("/admin/login/?next=/admin/api/applicationpassword/add/"))
    wait(browser).until(ec.element_to_be_clickable((By.ID, "id_username"))).send_keys("redaktorka")
    browser.find_element(By.ID, "id_password").send_keys("Hasło-do-panelu-123")
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    name = wait(browser).until(ec.element_to_be_clickable((By.ID, "id_name")))
    name.send_keys("Skrypt importu")
    browser.find_element(By.NAME, "_save").click()
    shown = wait(browser).until(ec.presence_of_element_located((By.ID, "application-password")))
    password = shown.text
    assert len(password.replace(" ", "")) == 24
    assert "nie będzie pokazane ponownie" in browser.find_element(By.ID, "content-main").text
    assert screenshot(browser, "rest-application-password", tmp_path).stat().st_size > 0

    token = base64.b64encode(f"redaktorka:{password}".encode()).decode()
    request = urllib.request.Request(
        f"{live_server.url}{API}/terms", method="POST",
        data=json.dumps({"title": "Z przeglądarki"}).encode(),
        headers={"Authorization": f"Basic {token}", "Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=30) as response:
        created = json.loads(response.read())
    assert response.status == 201 and created["status"] == "draft"
    assert created["last_editor"] == user.pk

    browser.get(browser.url("/admin/api/applicationpassword/"))
    listing = wait(browser).until(ec.presence_of_element_located((By.ID, "result_list"))).text
    assert "Skrypt importu" in listing and password not in browser.page_source
