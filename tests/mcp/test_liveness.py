"""mcp_endpoint/transports/liveness.py: a GET stream's claim names its owner process, and a
process on the same machine tells a crashed owner from a live one (issue 13, item 11)."""

import os
import subprocess
import sys

import pytest

from mcp_endpoint.models import McpSession
from mcp_endpoint.transports import liveness, streams


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _owner(pid, started="1") -> str:
    machine = liveness.identity().split(" ")[0]
    return f"{machine} {pid} {started}"


OWNERS = {
    "this process": (lambda: liveness.identity(), False),
    "a PID that exited": (lambda: _owner(_dead_pid()), True),
    "a reused PID (other start time)": (lambda: _owner(os.getpid(), "1"), True),
    "another host (the lease decides)": (lambda: "elsewhere/boot/ns 1 1", False),
    "no owner recorded": (lambda: "", False),
    "malformed": (lambda: "garbage", False),
}


@pytest.mark.parametrize("case", list(OWNERS))
def test_is_gone_only_when_certain(case):
    """Gone means: same machine and PID namespace, and the PID is free or started at another
    time; anything that cannot be checked is not gone (the lease still frees it)."""
    make, gone = OWNERS[case]
    assert liveness.is_gone(make()) is gone


@pytest.mark.django_db
@pytest.mark.parametrize(("owner", "taken_over"), [("dead", True), ("alive", False)])
def test_a_crashed_owners_claim_is_taken_over_at_once(owner, taken_over):
    """A session whose stream claim is still leased (120 s) but whose owner process is gone
    gets its stream back on the next GET; a live owner's claim is still refused."""
    from django.utils import timezone

    McpSession.objects.create(
        key_hash="k" * 64,
        protocol_version="2025-11-25",
        last_seen=timezone.now(),
        stream_holder="h" * 32,
        stream_lease_until=timezone.now() + streams.LEASE,
        stream_owner=_owner(_dead_pid()) if owner == "dead" else liveness.identity(),
    )
    holder = streams._claim("k" * 64)
    row = McpSession.objects.get()
    assert (holder is not None) is taken_over
    assert row.stream_holder == (holder if taken_over else "h" * 32)
    if taken_over:
        assert row.stream_owner == liveness.identity()
