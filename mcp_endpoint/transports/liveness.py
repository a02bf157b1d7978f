"""Which process holds a GET stream's claim, and whether that process still runs.

Why: a session's one GET stream holds a lease in its database row (streams.py) that the
stream renews while it lives; a process that crashes (SIGKILL, OOM killer, a segfault) cannot
release it, and the lease alone would refuse the client's reconnect with 409 for up to its
length. So the claim also names its owner: host, boot, PID namespace, PID and the process's
start time. A process on the same machine (the usual single-host deployment, one systemd unit
with several workers) can tell at once whether that process is gone: no such PID, or a PID
reused by a process that started later. An owner on another host cannot be checked from here;
its lease decides, as before.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

_identity: tuple[int, str] | None = None


def _read(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return ""


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (/proc/<pid>/stat field 22), "" where
    /proc is not available, None when there is no such process."""
    if not Path("/proc/self/stat").exists():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return ""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    except OSError:
        return ""
    # The command name (field 2) is in parentheses and may contain spaces.
    return stat.rsplit(")", 1)[1].split()[19]


def _machine() -> str:
    """This machine and PID namespace: PIDs compare only within the same one."""
    try:
        namespace = str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        namespace = ""
    boot = _read("/proc/sys/kernel/random/boot_id")
    return f"{socket.gethostname()}/{boot}/{namespace}"


def identity() -> str:
    """This process as a claim owner: `<machine> <pid> <start time>` (recomputed after a fork)."""
    global _identity
    pid = os.getpid()
    if _identity is None or _identity[0] != pid:
        _identity = (pid, f"{_machine()} {pid} {_start_time(pid) or ''}")
    return _identity[1]


def is_gone(owner: str) -> bool:
    """True only when `owner` certainly no longer runs: same machine and PID namespace, and its
    PID is free or belongs to a process started at another time. Anything unknown (another
    host, an unreadable /proc, an empty or old-format owner) is False: the lease decides."""
    machine, _, rest = owner.partition(" ")
    pid_text, _, started = rest.partition(" ")
    if not machine or machine != _machine() or not pid_text.isdigit():
        return False
    now = _start_time(int(pid_text))
    if now is None:
        return True
    return bool(started and now and now != started)
