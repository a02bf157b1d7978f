"""Brute-force protection of the admin login (issue 13, item 8; django-axes, database
handler): AXES_FAILURE_LIMIT wrong passwords for one account from one address lock that
pair out for AXES_COOLOFF_TIME — the right password is then refused too, with a clear
Polish message — while the same account from another address, and other accounts, still
log in. Failures are rows in the database, so every server process sees them."""

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/"
PASSWORD = "poprawne-haslo-42"


@pytest.fixture
def editor(db):
    return User.objects.create_superuser("ewa", "ewa@example.com", PASSWORD)


def _login(client, password, username="ewa"):
    return client.post(LOGIN, {"username": username, "password": password, "next": "/admin/"})


def _logged_in(client) -> bool:
    return client.get("/admin/").status_code == 200


def test_wrong_passwords_lock_the_account_out_for_that_client(editor):
    """After AXES_FAILURE_LIMIT wrong passwords the next login — with the right password —
    is refused (429) with the Polish lockout page, and no session is made."""
    limit = settings.AXES_FAILURE_LIMIT
    assert limit == 5
    client = Client(REMOTE_ADDR="203.0.113.7")
    for attempt in range(1, limit):
        response = _login(client, f"zle-{attempt}")
        assert response.status_code == 200, attempt  # the form again, with its error
        assert "Wprowadź poprawne" in response.content.decode()
    _login(client, f"zle-{limit}")
    response = _login(client, PASSWORD)
    assert response.status_code == 429
    text = response.content.decode()
    assert "Logowanie chwilowo zablokowane" in text
    assert "Zbyt wiele nieudanych prób logowania" in text and "<strong>ewa</strong>" in text
    assert "przez 15 min" in text and "nawet z poprawnym hasłem" in text
    assert '<html lang="pl"' in text
    assert not _logged_in(client)


def test_the_lock_is_stored_in_the_database(editor):
    """The failures are AccessAttempt rows (axes' database handler), which every process
    reads: a lock made through one worker holds in all of them."""
    assert settings.AXES_HANDLER == "axes.handlers.database.AxesDatabaseHandler"
    client = Client(REMOTE_ADDR="203.0.113.8")
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        _login(client, f"zle-{attempt}")
    row = AccessAttempt.objects.get(username="ewa", ip_address="203.0.113.8")
    assert row.failures_since_start == settings.AXES_FAILURE_LIMIT
    assert "zle-" not in row.post_data  # the password itself is not stored


def test_another_address_and_another_account_still_log_in(editor):
    """The lock is for the (account, address) pair: the editor logs in from elsewhere, and
    another account from the locked address, so an attacker cannot lock a real editor out."""
    User.objects.create_superuser("jan", "jan@example.com", PASSWORD)
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        _login(attacker, f"zle-{attempt}")
    assert _login(attacker, PASSWORD).status_code == 429
    elsewhere = Client(REMOTE_ADDR="198.51.100.20")
    assert _login(elsewhere, PASSWORD).status_code == 302 and _logged_in(elsewhere)
    other = Client(REMOTE_ADDR="203.0.113.9")
    assert _login(other, PASSWORD, username="jan").status_code == 302 and _logged_in(other)


def test_a_successful_login_resets_the_count(editor):
    """Typos followed by the right password cost nothing later: the count starts again."""
    client = Client(REMOTE_ADDR="203.0.113.10")
    for attempt in range(settings.AXES_FAILURE_LIMIT - 1):
        _login(client, f"zle-{attempt}")
    assert _login(client, PASSWORD).status_code == 302
    client.logout()
    for attempt in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _login(client, f"znowu-{attempt}").status_code == 200
    assert _login(client, PASSWORD).status_code == 302


def test_force_login_and_application_passwords_are_unaffected(editor, settings):
    """Sessions made without the login form (client.force_login) and REST Basic auth with
    an application password (api/authentication.py checks it itself, never through
    django.contrib.auth.authenticate) keep working while the account is locked."""
    import base64

    from api.models import ApplicationPassword

    client = Client(REMOTE_ADDR="127.0.0.1")
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        _login(client, f"zle-{attempt}")
    assert _login(client, PASSWORD).status_code == 429
    client.force_login(editor)
    assert _logged_in(client)
    settings.DEBUG = True  # Basic auth over plain HTTP, as in the REST tests
    _row, password = ApplicationPassword.objects.issue(user=editor, name="cli")
    token = base64.b64encode(f"ewa:{password}".encode()).decode()
    response = Client(REMOTE_ADDR="127.0.0.1").get(
        "/wp-json/webflux/v1/terms", {"context": "edit"}, HTTP_AUTHORIZATION=f"Basic {token}"
    )
    assert response.status_code == 200


def test_an_invented_forwarded_address_does_not_dodge_the_lock(editor):
    """Without a configured proxy (API_NUM_PROXIES=0) X-Forwarded-For is not believed: a
    client sending a new address in it with every guess is still one client."""
    client = Client(REMOTE_ADDR="203.0.113.11")
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        client.post(
            LOGIN,
            {"username": "ewa", "password": f"zle-{attempt}"},
            HTTP_X_FORWARDED_FOR=f"10.0.0.{attempt}",
        )
    response = client.post(
        LOGIN, {"username": "ewa", "password": PASSWORD}, HTTP_X_FORWARDED_FOR="10.9.9.9"
    )
    assert response.status_code == 429
