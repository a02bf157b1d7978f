"""A small scaled-out deployment for stream tests: one database, N real server processes,
optionally a private Redis, and a way to edit content from a process that serves nothing.

`tests/processes.py` runs the one shared demo server; streaming tests edit content and hold
connections open, so they get a deployment of their own that no other test reads. The server
command is the one `tests/processes.py` (and `make run`) uses.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import queue
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.processes import HOST, ROOT, SERVER_COMMAND, ThrowawayDatabase, free_port

STARTUP_TIMEOUT = 60.0


def _die_with_parent() -> None:
    """If pytest dies without tearing down, the kernel stops the server too."""
    if sys.platform == "linux":
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Redis:
    """A private redis-server on a unix socket in a temporary directory."""

    def __init__(self) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="slownik-redis-"))
        self.socket = self.workdir / "redis.sock"
        self.url = f"unix://{self.socket}"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        if shutil.which("redis-server") is None:  # what `make test` does first
            subprocess.run([str(ROOT / "scripts" / "ensure-redis")], check=True)
        log = (self.workdir / "redis.log").open("wb")
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port", "0",
                "--unixsocket", str(self.socket),
                "--unixsocketperm", "700",
                "--save", "",
                "--appendonly", "no",
                "--dir", str(self.workdir),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent,
        )  # fmt: skip
        log.close()
        deadline = time.monotonic() + 20
        while not self.ping():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((self.workdir / "redis.log").read_text())
            time.sleep(0.05)

    def ping(self) -> bool:
        try:
            with socket.socket(socket.AF_UNIX) as client:
                client.connect(str(self.socket))
                client.sendall(b"PING\r\n")
                return client.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def subscribers(self, channel: str) -> int:
        """How many connections are subscribed to a pub/sub channel (one per server process
        that has opened a stream)."""
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(str(self.socket))
            name = channel.encode()
            client.sendall(
                b"*3\r\n$6\r\nPUBSUB\r\n$6\r\nNUMSUB\r\n$%d\r\n%s\r\n" % (len(name), name)
            )
            reply = client.recv(256).split(b"\r\n")
            # *2 / $len / channel / :count
            return int(reply[3][1:])

    def stop(self) -> None:
        try:
            if self.process and self.process.poll() is None:
                self.process.terminate()
                self.process.wait(10)
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)


class Deployment:
    """One database (PostgreSQL next to the test database, or a SQLite file) served by
    `processes` uvicorn processes with the same production-like settings."""

    def __init__(
        self,
        *,
        processes: int = 1,
        redis_url: str = "",
        name: str = "streams",
        settings: dict[str, str] | None = None,
    ) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix=f"slownik-{name}-"))
        self.database = ThrowawayDatabase(os.environ.get("DATABASE_URL", ""), name, self.workdir)
        self.database_url = self.database.url
        self.ports = [free_port() for _ in range(processes)]
        self.urls = [f"http://{HOST}:{port}" for port in self.ports]
        self.env = {**self._env(redis_url), **(settings or {})}
        self.processes: list[subprocess.Popen] = []

    # --- database ---------------------------------------------------------------------------
    def database_connections(self) -> int:
        """Backends connected to this deployment's PostgreSQL database right now."""
        with self.database.admin_connect() as conn:
            return conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s",
                [self.database.pg_name],
            ).fetchone()[0]

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Read this deployment's database directly (`%s` placeholders on both vendors)."""
        if self.database.pg_name:
            with self.database.connect() as conn:
                return conn.execute(sql, params).fetchall()
        import sqlite3

        conn = sqlite3.connect(self.database_url.removeprefix("sqlite:///"))
        try:
            return conn.execute(sql.replace("%s", "?"), params).fetchall()
        finally:
            conn.close()

    def _env(self, redis_url: str) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
        origins = ",".join(self.urls)
        env.update(
            {
                "DJANGO_SETTINGS_MODULE": "config.settings",
                "DATABASE_URL": self.database_url,
                "DEBUG": "0",
                "SECRET_KEY": secrets.token_urlsafe(50),
                "ALLOWED_HOSTS": f"{HOST},localhost",
                "SECURE_SSL_REDIRECT": "0",
                "SECURE_HSTS_SECONDS": "0",
                "SITE_URL": self.urls[0],
                "STATIC_ROOT": str(self.workdir / "static"),
                "MCP_ALLOWED_ORIGINS": origins,
                "LOG_LEVEL": "WARNING",
                "PYTHONUNBUFFERED": "1",
            }
        )
        if redis_url:
            env["REDIS_URL"] = redis_url
        return env

    # --- processes --------------------------------------------------------------------------
    def manage(self, *args: str, timeout: float = 300) -> str:
        """`manage.py <args>` against this deployment's database; returns its stdout."""
        result = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(
                f"manage.py {' '.join(args)} exited with {result.returncode}\n"
                f"--- stdout ---\n{result.stdout[-4000:]}\n--- stderr ---\n{result.stderr[-4000:]}"
            )
        return result.stdout

    def shell(self, code: str) -> str:
        """Run Python in `manage.py shell`: a process that edits content and serves nothing."""
        return self.manage("shell", "-c", code)

    def start(self) -> None:
        self.manage("migrate", "--noinput", "-v", "0")
        for index, port in enumerate(self.ports):
            command = [part.format(host=HOST, port=port) for part in SERVER_COMMAND]
            err = (self.workdir / f"server{index}.stderr.log").open("wb")
            self.processes.append(
                subprocess.Popen(
                    command,
                    cwd=ROOT,
                    env=self.env,
                    stdout=subprocess.DEVNULL,
                    stderr=err,
                    preexec_fn=_die_with_parent,
                )
            )
            err.close()
        for index, port in enumerate(self.ports):
            self._wait_until_ready(index, port)

    def _wait_until_ready(self, index: int, port: int) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            if self.processes[index].poll() is not None:
                raise RuntimeError(f"server {index} exited during startup\n{self.stderr(index)}")
            conn = http.client.HTTPConnection(HOST, port, timeout=2)
            try:
                conn.request("GET", "/wp-json/")
                conn.getresponse().read()
                return
            except OSError:
                time.sleep(0.1)
            finally:
                conn.close()
        raise RuntimeError(f"server {index} did not answer\n{self.stderr(index)}")

    def stderr(self, index: int = 0) -> str:
        path = self.workdir / f"server{index}.stderr.log"
        try:
            return "\n".join(path.read_text(errors="replace").splitlines()[-60:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        try:
            for process in self.processes:
                if process.poll() is None:
                    process.terminate()
            for process in self.processes:
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(10)
        finally:
            try:
                self.database.drop()
            finally:
                shutil.rmtree(self.workdir, ignore_errors=True)


class SseReader(threading.Thread):
    """Reads one SSE stream in the background and queues (event, data, id, arrival time);
    comment lines are counted, not queued."""

    def __init__(self, port: int, path: str, *, method: str = "GET", body=None, headers=None):
        super().__init__(daemon=True)
        self.conn = http.client.HTTPConnection(HOST, port, timeout=120)
        self.method, self.path, self.body = method, path, body
        self.headers = {"Accept": "text/event-stream", **(headers or {})}
        self.events: queue.Queue = queue.Queue()
        self.comments = 0
        self.status: int | None = None
        self.response_headers: dict[str, str] = {}
        self.opened = threading.Event()
        self.ended = threading.Event()

    def run(self) -> None:
        try:
            self.conn.request(self.method, self.path, body=self.body, headers=self.headers)
            response = self.conn.getresponse()
            self.status = response.status
            self.response_headers = {k.lower(): v for k, v in response.getheaders()}
            self.opened.set()
            fields: dict[str, str] = {}
            while True:
                line = response.readline()
                if not line:
                    return
                line = line.decode().rstrip("\r\n")
                if line == "":
                    if fields:
                        self.events.put(
                            (
                                fields.get("event", "message"),
                                fields.get("data", ""),
                                fields.get("id"),
                                time.time(),
                            )
                        )
                    fields = {}
                elif line.startswith(":"):
                    self.comments += 1
                else:
                    key, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    fields[key] = (
                        fields[key] + "\n" + value if key == "data" and key in fields else value
                    )
        except (OSError, AttributeError, ValueError):
            return
        finally:
            self.opened.set()
            self.ended.set()

    def next_event(self, name: str | None = None, timeout: float = 10.0):
        """The next event (of type `name`, skipping others): (event, data, id, arrived)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                if left <= 0:
                    raise queue.Empty
                item = self.events.get(timeout=left)
            except queue.Empty:
                raise AssertionError(f"no {name or 'SSE'} event within {timeout}s") from None
            if name is None or item[0] == name:
                return item

    def close(self) -> None:
        with contextlib.suppress(OSError, AttributeError):
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        self.conn.close()
