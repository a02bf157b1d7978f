"""What the benchmarks that start their own Django processes share: a database created
afresh in the throwaway cluster of `scripts/with-postgres`, and the production-like
environment those processes run with (DEBUG off, a settings-valid secret that guards
nothing: the cluster and its data are deleted after the run)."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def environment(name: str) -> dict[str, str]:
    """Environment of a benchmark's Django process; `name` marks whose secret it is."""
    return {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "0",
        "SECRET_KEY": f"bench-{name}-" + "not-a-secret-only-for-a-throwaway-cluster-" * 2,
        "ALLOWED_HOSTS": "127.0.0.1,testserver",
        "SECURE_SSL_REDIRECT": "0",
        "LOG_LEVEL": "WARNING",
    }


def _admin(base_url: str):
    import psycopg

    parts = urlsplit(base_url)
    return psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True)


def create_database(base_url: str, name: str) -> str:
    """Drop and create database `name` in the cluster of `base_url`; returns its URL."""
    return database(base_url, name)[0]


def database(base_url: str, name: str, *, reuse: bool = False) -> tuple[str, bool]:
    """The URL of a fresh database `name` in the cluster of `base_url`, or with `reuse` of
    the existing one, and whether it already existed (and was kept)."""
    url = urlunsplit(urlsplit(base_url)._replace(path="/" + name))
    with _admin(base_url) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if reuse and exists:
            return url, True
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return url, False


def drop_database(base_url: str, name: str) -> None:
    with _admin(base_url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
