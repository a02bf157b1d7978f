"""Real server processes for the tests that talk to Słownik the way outside peers do: the one
process helper of the suite.

The SDK client, the conformance suite and the curl-exchange tests need a server they reach over
a socket, started with the command `make run` uses, not Django's in-process test client: only a
real process shows what an agent sees (middleware, ASGI server, production settings, stdout
hygiene of `mcp_stdio`). Each gets its own database filled by `migrate` (and `load_demo`) in
subprocesses, so it never touches the test database pytest-django manages nor `db.sqlite3`:
on PostgreSQL a `slownik_<name>_<pid>` database next to the test database in the same cluster,
on SQLite a temporary file.

- `LiveServer`: the one shared demo server of a run (the `live_site` fixture in
  tests/conftest.py), with `spawn()` for siblings on the same database;
- `Deployment`: a small scaled-out deployment for stream tests, which edit content and hold
  connections open, so they get one of their own that no other test reads: one database, N
  server processes, optionally a private `Redis`, and a way to edit content from a process
  that serves nothing (`shell`);
- `SseReader`: one SSE stream read in the background.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import queue
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

import dj_database_url

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent

# The one place that says how the live server is started: the same ASGI server `make run` uses.
# Switch it here (e.g. to the production WSGI server) and every live test follows.
SERVER_COMMAND = (
    str(VENV_BIN / "uvicorn"),
    "config.asgi:application",
    "--host",
    "{host}",
    "--port",
    "{port}",
    "--no-access-log",
)

# The production server for pages and MCP POSTs (README, "Production"): granian's native HTTP
# loop over Django's WSGI handler (config/wsgi.py). Streams stay on the ASGI server above.
WSGI_SERVER_COMMAND = (
    str(VENV_BIN / "granian"),
    "--interface",
    "wsgi",
    "--host",
    "{host}",
    "--port",
    "{port}",
    "--workers",
    "1",
    "--blocking-threads",
    "2",
    "--no-ws",
    "config.wsgi:application",
)

HOST = "127.0.0.1"
MCP_PATH = "/wp-json/webflux/v1/mcp"
# Small pages so that every paginated list (tools, resources, list_terms) really has more than
# one page over the demo content and the peers must follow cursors.
PAGE_SIZE = 5
STARTUP_TIMEOUT = 60.0
STOP_TIMEOUT = 10.0
# The settings of a server process that serves the test suite's conformance server (the
# glossary plus the suite's fixtures, tests/mcp/conformance_server.py) instead of the
# product's. Pages large enough to hold every tool in one `tools/list` page: some scenarios
# (json-schema-2020-12) read only the first page.
CONFORMANCE_SERVER = {"MCP_SERVER": "tests.mcp.conformance_server.server", "MCP_PAGE_SIZE": "100"}


def free_port() -> int:
    """A port the kernel just gave us on loopback; the tiny race before the server binds it is
    acceptable for tests (a clash fails loudly at startup, never silently)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def _die_with_parent() -> None:
    """Runs in the child before exec: if pytest dies without tearing down (SIGKILL, a crash),
    the kernel sends the server SIGTERM instead of leaving it serving on a stray port."""
    if sys.platform == "linux":
        import ctypes
        import signal

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _tail(path: Path, lines: int = 60) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:]) or "(empty)"


class ServerProcess:
    """One server process on its own loopback port, serving an environment prepared for it.

    By default the port-dependent settings (the site's own URL, the allowed Origins) follow the
    port, so the conformance suite's DNS-rebinding check sees its own origin accepted on every
    process; a `Deployment` passes `own_urls=False` and sets them for all its processes."""

    def __init__(
        self,
        env: dict[str, str],
        workdir: Path,
        name: str = "server",
        command: tuple[str, ...] = SERVER_COMMAND,
        *,
        port: int | None = None,
        own_urls: bool = True,
    ) -> None:
        self.name = name
        self.command_template = command
        self.port = port or free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.mcp_url = self.url + MCP_PATH
        self.env = dict(env)
        if own_urls:
            self.env["SITE_URL"] = self.url
            self.env["MCP_ALLOWED_ORIGINS"] = f"{self.url},http://localhost:{self.port}"
        self.stdout_path = workdir / f"{name}.stdout.log"
        self.stderr_path = workdir / f"{name}.stderr.log"
        self.process: subprocess.Popen | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @property
    def command(self) -> list[str]:
        return [part.format(host=HOST, port=self.port) for part in self.command_template]

    def start(self, *, wait: bool = True) -> ServerProcess:
        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            self.process = subprocess.Popen(
                self.command,
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=err,
                preexec_fn=_die_with_parent,
            )
        if wait:
            self.wait_until_ready()
        return self

    def wait_until_ready(self) -> None:
        """Any HTTP answer means the app is imported and the socket is bound."""
        deadline = time.monotonic() + STARTUP_TIMEOUT
        last_error: Exception | None = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"live {self.name} exited with {self.process.returncode} during startup\n"
                    f"{self.stderr_tail()}"
                )
            conn = http.client.HTTPConnection(HOST, self.port, timeout=2)
            try:
                conn.request("GET", "/wp-json/")
                conn.getresponse().read()
                return
            except OSError as exc:
                last_error = exc
                time.sleep(0.1)
            finally:
                conn.close()
        raise RuntimeError(
            f"live {self.name} did not answer within {STARTUP_TIMEOUT:.0f}s ({last_error})\n"
            f"{self.stderr_tail()}"
        )

    def stop(self) -> None:
        """SIGTERM, and SIGKILL if it does not exit in time."""
        stop_all([self])

    def stderr_tail(self, lines: int = 60) -> str:
        return (
            f"--- live {self.name} stderr (last {lines} lines) ---\n"
            f"{_tail(self.stderr_path, lines)}"
        )


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def stop_all(processes: list[ServerProcess]) -> None:
    """SIGTERM to every running one at once, then SIGKILL to any that did not exit in time,
    and to any worker process (granian's, uvicorn's) that outlived its main process."""
    running = [p.process for p in processes if p.process and p.process.poll() is None]
    workers = [child for process in running for child in _children(process.pid)]
    for process in running:
        process.terminate()
    for process in running:
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_TIMEOUT)
    for pid in workers:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def production_env(
    base: dict[str, str], *, database_url: str, workdir: Path, site_url: str, origins: str
) -> dict[str, str]:
    """Production settings (DEBUG=0, a fresh SECRET_KEY), minus what needs TLS: the tests speak
    plain HTTP on loopback, so the HTTPS redirect and HSTS are switched off explicitly, as a
    deployment behind a TLS-terminating proxy would."""
    env = {key: value for key, value in base.items() if key != "DJANGO_SETTINGS_MODULE"}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": database_url,
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": f"{HOST},localhost",
            "SECURE_SSL_REDIRECT": "0",
            "SECURE_HSTS_SECONDS": "0",
            "SITE_URL": site_url,
            "MCP_ALLOWED_ORIGINS": origins,
            "STATIC_ROOT": str(workdir / "static"),
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def spawn_manage(env: dict[str, str], *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen, timeout: float = 300) -> str:
    """Wait for a `spawn_manage` process; its stdout, or an error with both outputs."""
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
    if process.returncode != 0:
        raise RuntimeError(
            f"{' '.join(process.args[1:])} exited with {process.returncode}\n"
            f"--- stdout ---\n{stdout[-4000:]}\n--- stderr ---\n{stderr[-4000:]}"
        )
    return stdout


class ThrowawayDatabase:
    """A database of its own for server processes under test: on PostgreSQL (the suite runs
    under scripts/with-postgres) `slownik_<name>_<pid>` in the same cluster as the test
    database, created fresh and dropped with FORCE; otherwise a SQLite file in `workdir`."""

    def __init__(self, source_url: str, name: str, workdir: Path) -> None:
        self.pg_admin: dict | None = None
        self.pg_name: str | None = None
        if not source_url.startswith(("postgres://", "postgresql://")):
            self.url = f"sqlite:///{workdir / f'{name}.sqlite3'}"
            return
        config = dj_database_url.parse(source_url)
        self.pg_admin = {
            "dbname": "postgres",
            "host": config.get("HOST") or None,
            "port": config.get("PORT") or None,
            "user": config.get("USER") or None,
            "password": config.get("PASSWORD") or None,
        }
        self.pg_name = f"slownik_{name}_{os.getpid()}"
        self._admin("DROP DATABASE IF EXISTS {} WITH (FORCE)")
        self._admin("CREATE DATABASE {}")
        parts = urlsplit(source_url)
        self.url = urlunsplit(parts._replace(path="/" + quote(self.pg_name)))

    @property
    def vendor(self) -> str:
        return "postgresql" if self.pg_name else "sqlite"

    def _admin(self, statement: str) -> None:
        import psycopg  # only needed on the PostgreSQL pass
        from psycopg import sql

        with psycopg.connect(**self.pg_admin, autocommit=True) as conn:
            conn.execute(sql.SQL(statement).format(sql.Identifier(self.pg_name)))

    def connect(self, **options):
        """A psycopg connection to this (PostgreSQL) database."""
        import psycopg

        return psycopg.connect(**{**self.pg_admin, "dbname": self.pg_name}, **options)

    def admin_connect(self):
        import psycopg

        return psycopg.connect(**self.pg_admin, autocommit=True)

    def drop(self) -> None:
        if self.pg_name:
            self._admin("DROP DATABASE IF EXISTS {} WITH (FORCE)")


class LiveServer:
    """Creates the database, fills it, serves it, and tears everything down again."""

    def __init__(self, *, base_env: dict[str, str] | None = None, name: str = "live") -> None:
        self.base_env = dict(os.environ if base_env is None else base_env)
        self.workdir = Path(tempfile.mkdtemp(prefix="slownik-live-"))
        # `name` keeps the databases of two servers in one test run apart.
        self.database = ThrowawayDatabase(self.base_env.get("DATABASE_URL", ""), name, self.workdir)
        self.database_url = self.database.url
        self.server = ServerProcess(self._server_env(), self.workdir)
        self.env = self.server.env  # also what manage.py and mcp_stdio run with
        self.port, self.url, self.mcp_url = self.server.port, self.server.url, self.server.mcp_url
        self._siblings: list[ServerProcess] = []

    # --- database -------------------------------------------------------------------------
    @property
    def vendor(self) -> str:
        return self.database.vendor

    # --- environment ----------------------------------------------------------------------
    def _server_env(self) -> dict[str, str]:
        env = production_env(
            self.base_env,
            database_url=self.database_url,
            workdir=self.workdir,
            site_url="",  # follows the port (ServerProcess)
            origins="",
        )
        env["MCP_PAGE_SIZE"] = str(PAGE_SIZE)
        return env

    def manage(self, *args: str, timeout: float = 300) -> str:
        """Run `manage.py <args>` against the live database; fails with its output."""
        return finish(spawn_manage(self.env, *args), timeout)

    # --- processes ------------------------------------------------------------------------
    @property
    def process(self) -> subprocess.Popen | None:
        return self.server.process

    def start(self) -> None:
        # DEBUG=0 serves hashed static names from a manifest (pages, error pages), so collect;
        # it needs no database, so it runs alongside migrate and load_demo.
        collect = spawn_manage(self.env, "collectstatic", "--noinput", "-v", "0")
        try:
            self.manage("migrate", "--noinput", "-v", "0")
            self.manage("load_demo")
        finally:
            finish(collect)
        self.server.start()

    def spawn(
        self, name: str, *, command: tuple[str, ...] = SERVER_COMMAND, **env: str
    ) -> ServerProcess:
        """Another server process on the same database, with some settings changed (e.g. test
        fixtures switched on) or another server command; stopped with this one at the latest."""
        sibling = ServerProcess({**self.env, **env}, self.workdir, name, command)
        self._siblings.append(sibling)
        return sibling.start()

    def stop(self) -> None:
        try:
            stop_all([*self._siblings, self.server])
        finally:
            try:
                self.database.drop()
            finally:
                shutil.rmtree(self.workdir, ignore_errors=True)

    def stderr_tail(self, lines: int = 60) -> str:
        return self.server.stderr_tail(lines)

    # --- helpers for tests ----------------------------------------------------------------
    def stdio_env(self) -> dict[str, str]:
        """What `manage.py mcp_stdio` needs to serve the same database with the same settings."""
        keys = (
            "DJANGO_SETTINGS_MODULE",
            "DATABASE_URL",
            "DEBUG",
            "SECRET_KEY",
            "ALLOWED_HOSTS",
            "SECURE_SSL_REDIRECT",
            "SECURE_HSTS_SECONDS",
            "SITE_URL",
            "STATIC_ROOT",
            "MCP_ALLOWED_ORIGINS",
            "MCP_PAGE_SIZE",
            "LOG_LEVEL",
            "PGHOST",
        )
        return {key: self.env[key] for key in keys if key in self.env}


# --- A PostgreSQL cluster of its own, for fault tests ---------------------------------------
class PostgresCluster:
    """A private PostgreSQL cluster that a fault test may stop and start at will (the suite's
    shared cluster from scripts/with-postgres must stay up for every other test): initdb into a
    temporary directory, a unix socket there and no TCP port, the same settings and the same
    unprivileged user under root as scripts/with-postgres."""

    USER = "slownikpg"

    def __init__(self) -> None:
        self.bin = self._find_bin()
        self.workdir = Path(tempfile.mkdtemp(prefix="slownik-pgfault-"))
        self.data = self.workdir / "data"
        self.log = self.workdir / "server.log"
        self.run_as: list[str] = []
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            subprocess.run(["id", self.USER], check=True, capture_output=True)
            shutil.chown(self.workdir, self.USER)
            self.run_as = ["runuser", "-u", self.USER, "--"]

    @staticmethod
    def _find_bin() -> Path:
        initdb = shutil.which("initdb")
        if initdb:
            return Path(initdb).parent
        found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
        if not found:
            raise RuntimeError("PostgreSQL not installed (scripts/with-postgres installs it)")
        return found[-1].parent

    def _run(self, *args: str) -> None:
        result = subprocess.run(
            [*self.run_as, *args], capture_output=True, text=True, timeout=120, check=False
        )
        if result.returncode != 0:
            raise RuntimeError(
                f"{args[0]} failed:\n{result.stdout}{result.stderr}\n{_tail(self.log)}"
            )

    def url(self, dbname: str) -> str:
        return f"postgres://postgres@{quote(str(self.workdir), safe='')}/{dbname}"

    def start(self) -> None:
        if not self.data.exists():
            self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A",
                      "trust", "-E", "UTF8", "--locale=C.UTF-8")  # fmt: skip
        options = (
            f"-c listen_addresses='' -k {self.workdir} -c fsync=off -c synchronous_commit=off "
            "-c full_page_writes=off -c max_connections=100"
        )
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w",
                  "-t", "60", "-o", options, "start")  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        """`fast` is what `systemctl restart postgresql` does: every backend is terminated."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(host=str(self.workdir), user="postgres", dbname="postgres",
                             autocommit=True) as conn:  # fmt: skip
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def destroy(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self.stop("immediate")
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)


# --- Scaled-out deployments for stream tests ----------------------------------------------
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
        base = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
        self.env = production_env(
            base,
            database_url=self.database_url,
            workdir=self.workdir,
            site_url=self.urls[0],
            origins=",".join(self.urls),
        )
        if redis_url:
            self.env["REDIS_URL"] = redis_url
        self.env.update(settings or {})
        self.processes = [
            ServerProcess(self.env, self.workdir, f"server{index}", port=port, own_urls=False)
            for index, port in enumerate(self.ports)
        ]

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

    # --- processes --------------------------------------------------------------------------
    def manage(self, *args: str, timeout: float = 300) -> str:
        """`manage.py <args>` against this deployment's database; returns its stdout."""
        return finish(spawn_manage(self.env, *args), timeout)

    def shell(self, code: str) -> str:
        """Run Python in `manage.py shell`: a process that edits content and serves nothing."""
        return self.manage("shell", "-c", code)

    def start(self) -> None:
        self.manage("migrate", "--noinput", "-v", "0")
        for process in self.processes:
            process.start(wait=False)
        for process in self.processes:
            process.wait_until_ready()

    def stderr(self, index: int = 0) -> str:
        return _tail(self.processes[index].stderr_path)

    def stop(self) -> None:
        try:
            stop_all(self.processes)
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


# --- Reading glossary tool results ----------------------------------------------------------
def hit_slugs(structured) -> list[str]:
    """The slugs of a ranked or paged result list, in order, wherever the tool puts that list
    (the issue fixes the fields of a hit, not the name of the list that holds them)."""
    candidates = [structured] if isinstance(structured, list) else list(structured.values())
    for value in candidates:
        if isinstance(value, list) and all(isinstance(v, dict) and "slug" in v for v in value):
            return [v["slug"] for v in value]
    raise AssertionError(f"no list of hits with slugs in {structured!r}")
