"""`make run`: what it checks before serving (manage.py prepare_run), what it prints, and the
documented way to see the production pages locally."""

import re
import socket
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from glossary import site

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def listening():
    """A loopback port something listens on (another server), closed afterwards."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server.getsockname()[1]
    server.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def prepare(port: int) -> str:
    out = StringIO()
    call_command("prepare_run", "127.0.0.1", str(port), stdout=out)
    return out.getvalue()


def test_a_taken_port_is_refused_before_the_address_is_written(site_address, listening):
    """`make run` on a port another server holds stops with a Polish message naming the port
    and another one to try, and leaves the site address alone."""
    site_address("http://127.0.0.1:8000")
    with pytest.raises(CommandError, match=f"Port {listening} na 127.0.0.1 jest zajęty"):
        prepare(listening)
    site.forget()
    assert site.site_url() == "http://127.0.0.1:8000"


def test_a_second_run_keeps_the_address_of_the_first_while_it_serves(site_address, listening):
    """A second `make run` on another port (same database) keeps the first one's address
    while that server is up, and says so; once it is gone, the new run takes the address."""
    site_address(f"http://127.0.0.1:{listening}")
    port = free_port()
    out = prepare(port)
    assert f"Adres słownika zostaje http://127.0.0.1:{listening}" in out
    site.forget()
    assert site.site_url() == f"http://127.0.0.1:{listening}"


def test_a_run_takes_the_address_nobody_serves(site_address):
    """With the stored address not served (the previous run stopped), `make run` writes its
    own."""
    site_address(f"http://127.0.0.1:{free_port()}")
    port = free_port()
    assert f"Adres słownika: http://127.0.0.1:{port}" in prepare(port)
    site.forget()
    assert site.site_url() == f"http://127.0.0.1:{port}"


def _recipe(target: str) -> list[str]:
    text = (ROOT / "Makefile").read_text()
    block = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n)+)", text, re.M)
    assert block, target
    return [line.strip() for line in block.group(1).splitlines()]


def test_make_run_prints_its_banner_not_shell_lines_and_logs_requests():
    """`make run` and `make superuser` echo none of their commands (every recipe line of run,
    demo, migrate and superuser is silent) and the server logs each request (no
    --no-access-log)."""
    for target in ("run", "run-production", "demo", "migrate", "superuser"):
        assert all(line.startswith("@") for line in _recipe(target)), target
    script = (ROOT / "scripts" / "run").read_text()
    assert "--no-access-log" not in script and "uvicorn" in script


def test_production_pages_have_a_documented_target():
    """`make run-production` serves the site with DEBUG=0 on plain http (a throwaway key, no
    https redirect, collected static files), and the README says how to use it."""
    script = (ROOT / "scripts" / "run").read_text()
    for needed in ("DEBUG=0", "SECURE_SSL_REDIRECT=0", "SECRET_KEY", "collectstatic"):
        assert needed in script, needed
    assert "make run-production" in (ROOT / "README.md").read_text()
