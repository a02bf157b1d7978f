"""The site's one canonical address, stored in the database (Django's sites framework).

Every absolute URL the site hands out — pages' canonical links, feeds, the sitemap, REST
`_links`, MCP results over HTTP and over stdio — starts with `site_url()`. Why the database
and not only the `SITE_URL` environment variable: a stdio MCP server is launched by an agent's
client with an environment of its own (often just `DATABASE_URL`), so an environment variable
would give it another address than the web server's; the database is the one thing every
process of a deployment reads. `SITE_URL` is the address `migrate` gives a new site (Django
creates it as the placeholder `example.com`); `manage.py site_url URL` or the admin's "Strony"
change it afterwards.

`Site.domain` holds the host and port as Django expects (the admin's "view on site" and other
`django.contrib` code read it so); the scheme follows from it: `http` for loopback hosts
(`127.0.0.1`, `localhost`, `::1`) and for any explicit port other than 443, `https`
otherwise — a public site without a port is served over TLS (`check --deploy` asks for it),
while development servers always name their port. An address that rule cannot store
(`https://host:8443`, `http://host` without a port) is refused by `manage.py site_url`.

Reading it costs nothing per request: `selectors.content_state()`, which the hot paths (MCP
calls, term pages, REST ETags) already run once per request, reads the domain in the same
query and hands it to `seen()`; so a change reaches every process on its next such request,
and since the domain is part of the content state, every cache keyed by that state (the MCP
result cache, page caches, ETags) moves with it. Otherwise the value is read
once per process.
"""

from __future__ import annotations

import ipaddress
import logging
import threading
from urllib.parse import urlsplit

from django.conf import settings
from django.db import DatabaseError

logger = logging.getLogger("glossary")

PLACEHOLDER_DOMAIN = "example.com"  # what django.contrib.sites creates on migrate
_lock = threading.Lock()
_state: dict[str, str | None] = {"domain": None, "url": None}


def _host_and_port(domain: str) -> tuple[str, str | None]:
    if domain.startswith("["):  # [::1]:8000
        host, _, rest = domain[1:].partition("]")
        return host, rest.removeprefix(":") or None
    host, sep, port = domain.rpartition(":")
    return (host, port) if sep and port.isdigit() else (domain, None)


def _loopback(host: str) -> bool:
    host = host.lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_for(domain: str) -> str:
    """The canonical origin for a stored domain ("slownik.example" -> https://slownik.example,
    "127.0.0.1:8000" -> http://127.0.0.1:8000)."""
    if "://" in domain:  # typed into the admin's Site form as an origin: take it as such
        return domain.strip().rstrip("/")
    host, port = _host_and_port(domain.strip())
    if port == "443":
        return f"https://{domain.strip().removesuffix(':443')}"
    scheme = "http" if port is not None or _loopback(host) else "https"
    return f"{scheme}://{domain.strip()}"


def domain_for(url: str) -> str:
    """The domain to store for an origin such as https://slownik.example; ValueError when
    the address is no origin or the scheme rule would not give it back (see the module)."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.username:
        raise ValueError(f"{url!r} is not an http(s) origin such as https://slownik.example")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"{url!r} has a path, query or fragment; give the origin only")
    domain = parts.netloc.lower()
    if url_for(domain) != f"{parts.scheme}://{domain}".removesuffix(":443"):
        raise ValueError(
            f"{url!r} cannot be stored: a site without a port is https (http only on "
            "loopback hosts), and a site with a port other than 443 is http; name the port "
            "(http://host:80) or use https"
        )
    return domain.removesuffix(":443")


def seen(domain: str | None) -> None:
    """The domain a query just read (`selectors.content_state()`): remember it."""
    if domain and domain != _state["domain"]:
        with _lock:
            _state["domain"], _state["url"] = domain, url_for(domain)


def forget() -> None:
    """Read the site again on next use (the Site row was saved or deleted here)."""
    with _lock:
        _state["domain"] = _state["url"] = None


def site_changed(sender, **kwargs) -> None:
    """post_save/post_delete of a Site in this process."""
    forget()


def site_url() -> str:
    """The canonical origin, without a trailing slash: https://slownik.example."""
    url = _state["url"]
    if url is None:
        url = _read()
    return url


def _read() -> str:
    from django.contrib.sites.models import Site

    try:
        domain = Site.objects.get_current().domain
    except DatabaseError as exc:
        # No database yet (`check` or `collectstatic` before `migrate`): the configured
        # default, not remembered, so the stored address is read once there is one.
        logger.warning("Cannot read the site's address (%s): using SITE_URL", exc)
        return settings.SITE_URL
    except Site.DoesNotExist:
        # A flushed or hand-edited database: say so, and use the configured default.
        logger.warning(
            "No django_site row with id %s: using SITE_URL (%s) for absolute links; "
            "run manage.py site_url URL",
            settings.SITE_ID,
            settings.SITE_URL,
        )
        return settings.SITE_URL
    seen(domain)
    return _state["url"] or settings.SITE_URL


def ensure_site(*, using: str = "default", **kwargs) -> None:
    """post_migrate: a new site (Django's placeholder example.com) gets the address from
    `SITE_URL` and the name from `SITE_NAME`; an existing site keeps its own."""
    from django.contrib.sites.models import Site

    try:
        domain = domain_for(settings.SITE_URL)
    except ValueError as exc:
        logger.warning("SITE_URL cannot be stored as the site's address: %s", exc)
        return
    site = Site.objects.using(using).filter(pk=settings.SITE_ID).first()
    if site is None:
        Site.objects.using(using).create(
            pk=settings.SITE_ID, domain=domain, name=settings.SITE_NAME
        )
    elif site.domain == PLACEHOLDER_DOMAIN:
        site.domain, site.name = domain, settings.SITE_NAME
        site.save(using=using)
    forget()
