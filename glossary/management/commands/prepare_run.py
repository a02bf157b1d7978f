"""`manage.py prepare_run HOST PORT`: what `make run` checks before it starts a server.

Two development servers may share one database (db.sqlite3) and so one site address
(glossary/site.py). The address is written only when this server will really serve it: not
when the port is taken (the server would not start), and not when the stored address is
another development server that is up right now (its pages' links would turn into this one's).
"""

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sites.models import Site
from django.core.management.base import BaseCommand, CommandError

from glossary import site

# How long an address may take to accept a connection to count as served.
CONNECT_TIMEOUT = 0.5


def _family(host: str) -> int:
    try:
        return socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET
    except ValueError:
        return socket.AF_INET


def port_is_free(host: str, port: int) -> bool:
    """Whether a server could listen on host:port now (as uvicorn binds: SO_REUSEADDR)."""
    host = host.strip("[]")
    with socket.socket(_family(host), socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def is_served(url: str) -> bool:
    """Whether something accepts connections at `url`'s host and port, for a loopback
    address only (a public address is never probed)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if not site._loopback(host):
        return False
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT):
            return True
    except OSError:
        return False


class Command(BaseCommand):
    help = (
        "Before `make run`: refuse a taken port, and set the site address to this server's "
        "unless another server that is up now serves the stored one."
    )

    def add_arguments(self, parser):
        parser.add_argument("host")
        parser.add_argument("port", type=int)
        parser.add_argument("--address", help="this server's origin (default http://HOST:PORT)")

    def handle(self, *args, host, port, address, **options):
        if not port_is_free(host, port):
            raise CommandError(
                f"Port {port} na {host} jest zajęty (działa tam już inny serwer). Zatrzymaj go "
                f"albo wybierz inny port, np. make run PORT={port + 1}."
            )
        address = (address or f"http://{host}:{port}").rstrip("/")
        current = site.site_url()
        if current != address and is_served(current):
            self.stdout.write(
                f"Adres słownika zostaje {current}: ta sama baza należy do serwera, który "
                "tam działa, i jego odnośniki się nie zmienią. Ten serwer pokazuje te same "
                "treści, ale pełne adresy w nich (kanoniczne, kanał, MCP) prowadzą tam."
            )
            return
        try:
            domain = site.domain_for(address)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if current != address:
            Site.objects.update_or_create(
                pk=settings.SITE_ID,
                defaults={"domain": domain},
                create_defaults={"domain": domain, "name": settings.SITE_NAME},
            )
        self.stdout.write(f"Adres słownika: {address}")
