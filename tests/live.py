"""A real server process for tests that talk to Słownik the way outside peers do.

The SDK client, the conformance suite and the curl-exchange tests need a server they reach over
a socket, started with the command `make run` uses, not Django's in-process test client: only a
real process shows what an agent sees (middleware, ASGI server, production settings, stdout
hygiene of `mcp_stdio`). It gets its own database filled by `migrate` and `load_demo` in
subprocesses, so it never touches the test database pytest-django manages nor `db.sqlite3`:
on PostgreSQL a `slownik_live_<pid>` database next to the test database in the same cluster,
on SQLite a temporary file. The fixture wrapping this class lives in `tests/conftest.py`.
"""

from __future__ import annotations

import http.client
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
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
    """One server process on its own loopback port, serving an environment LiveServer prepared.

    The port-dependent settings (the site's own URL, the allowed Origins) follow the port, so the
    conformance suite's DNS-rebinding check sees its own origin accepted on every process."""

    def __init__(
        self,
        env: dict[str, str],
        workdir: Path,
        name: str = "server",
        command: tuple[str, ...] = SERVER_COMMAND,
    ) -> None:
        self.name = name
        self.command_template = command
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.mcp_url = self.url + MCP_PATH
        self.env = dict(env)
        self.env["SITE_URL"] = self.url
        self.env["MCP_ALLOWED_ORIGINS"] = f"{self.url},http://localhost:{self.port}"
        self.stdout_path = workdir / f"{name}.stdout.log"
        self.stderr_path = workdir / f"{name}.stderr.log"
        self.process: subprocess.Popen | None = None

    @property
    def command(self) -> list[str]:
        return [part.format(host=HOST, port=self.port) for part in self.command_template]

    def start(self) -> ServerProcess:
        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            self.process = subprocess.Popen(
                self.command,
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=err,
                preexec_fn=_die_with_parent,
            )
        self._wait_until_ready()
        return self

    def _wait_until_ready(self) -> None:
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
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(STOP_TIMEOUT)

    def stderr_tail(self, lines: int = 60) -> str:
        return (
            f"--- live {self.name} stderr (last {lines} lines) ---\n"
            f"{_tail(self.stderr_path, lines)}"
        )


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
        """Production settings (DEBUG=0), minus what needs TLS: the suite speaks plain HTTP on
        loopback, so the HTTPS redirect and HSTS are switched off explicitly, as a deployment
        behind a TLS-terminating proxy would."""
        env = dict(self.base_env)
        env.pop("DJANGO_SETTINGS_MODULE", None)
        env.update(
            {
                "DJANGO_SETTINGS_MODULE": "config.settings",
                "DATABASE_URL": self.database_url,
                "DEBUG": "0",
                "SECRET_KEY": secrets.token_urlsafe(50),
                "ALLOWED_HOSTS": f"{HOST},localhost",
                "SECURE_SSL_REDIRECT": "0",
                "SECURE_HSTS_SECONDS": "0",
                "STATIC_ROOT": str(self.workdir / "static"),
                "MCP_PAGE_SIZE": str(PAGE_SIZE),
                "LOG_LEVEL": "WARNING",
                "PYTHONUNBUFFERED": "1",
            }
        )
        return env

    def _spawn_manage(self, *args: str) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    @staticmethod
    def _finish(process: subprocess.Popen, timeout: float = 300) -> None:
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

    def manage(self, *args: str, timeout: float = 300) -> None:
        """Run `manage.py <args>` against the live database; fails with its output."""
        self._finish(self._spawn_manage(*args), timeout)

    # --- processes ------------------------------------------------------------------------
    @property
    def process(self) -> subprocess.Popen | None:
        return self.server.process

    def start(self) -> None:
        # DEBUG=0 serves hashed static names from a manifest (pages, error pages), so collect;
        # it needs no database, so it runs alongside migrate and load_demo.
        collect = self._spawn_manage("collectstatic", "--noinput", "-v", "0")
        try:
            self.manage("migrate", "--noinput", "-v", "0")
            self.manage("load_demo")
        finally:
            self._finish(collect)
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
            for process in [*self._siblings, self.server]:
                process.stop()
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


# --- Reading glossary tool results ----------------------------------------------------------
def hit_slugs(structured) -> list[str]:
    """The slugs of a ranked or paged result list, in order, wherever the tool puts that list
    (the issue fixes the fields of a hit, not the name of the list that holds them)."""
    candidates = [structured] if isinstance(structured, list) else list(structured.values())
    for value in candidates:
        if isinstance(value, list) and all(isinstance(v, dict) and "slug" in v for v in value):
            return [v["slug"] for v in value]
    raise AssertionError(f"no list of hits with slugs in {structured!r}")
