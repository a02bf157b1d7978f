"""config/connections.py: a persistent connection the database server closed is dropped at the
start of the next request, with no round trip, so the request gets a fresh one instead of an
OperationalError (the live proof is tests/live/test_database_restart.py)."""

import select
from unittest import mock

import pytest
from django.db import connection, connections

from config.connections import drop_closed_connections

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _terminate_own_backend():
    pid = connection.connection.info.backend_pid
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    finally:
        other.close()


def test_a_connection_the_server_terminated_is_replaced_before_the_request():
    """After pg_terminate_backend (what a restart does to every backend) the next request's
    first query works: the dead connection was closed at request_started."""
    connection.ensure_connection()
    old_pid = connection.connection.info.backend_pid
    _terminate_own_backend()
    # The server's FATAL message reaches the socket shortly after the termination.
    select.select([connection.connection.fileno()], [], [], 5)
    drop_closed_connections()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != old_pid


def test_the_wsgi_entry_point_runs_it_on_every_request():
    """config/wsgi.py connects it to request_started."""
    from django.core import signals

    import config.wsgi  # noqa: F401

    connected = signals.request_started.disconnect(drop_closed_connections)
    signals.request_started.connect(drop_closed_connections)
    assert connected


def test_a_healthy_idle_connection_is_kept_and_costs_no_query():
    """An idle connection with nothing to read stays open and is not queried."""
    connection.ensure_connection()
    raw = connection.connection
    with mock.patch.object(raw, "execute", side_effect=AssertionError("no query")):
        drop_closed_connections()
    assert connection.connection is raw
