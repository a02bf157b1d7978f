"""The production recipe works as written (issue 13, item 12): Debian's nginx with the shipped
deploy/nginx/slownik.conf (TLS on, a self-signed certificate) in front of the ExecStart
commands of deploy/systemd/slownik-wsgi.service (granian) and slownik-asgi.service (uvicorn),
with the production settings of the README: DEBUG=0, ALLOWED_HOSTS=slownik.example,
SECURE_SSL_REDIRECT=1 and SECURE_PROXY_SSL_HEADER=1. Only ports and paths are templated. A
page, an MCP call, an MCP listen stream and a page's event stream all answer 200 through
nginx, and plain HTTP is redirected to HTTPS once (no loop)."""

from __future__ import annotations

import http.client
import json
import os
import re
import shlex
import shutil
import socket
import ssl
import subprocess
import time
from pathlib import Path

import pytest

from tests.processes import (
    HOST,
    MCP_PATH,
    ROOT,
    VENV_BIN,
    ServerProcess,
    SseReader,
    ThrowawayDatabase,
    finish,
    free_port,
    production_env,
    spawn_manage,
    stop_all,
)

pytestmark = [pytest.mark.live, pytest.mark.postgres]

DEPLOY = ROOT / "deploy"
PUBLIC = "slownik.example"
MODERN = "2026-07-28"


def unit(name: str) -> tuple[list[str], dict[str, str]]:
    """A systemd unit's ExecStart (continuation lines joined) and its Environment= settings."""
    text = (DEPLOY / "systemd" / name).read_text().replace("\\\n", " ")
    command = shlex.split(re.search(r"^ExecStart=(.+)$", text, re.M)[1])
    env: dict[str, str] = {}
    for line in re.findall(r"^Environment=(.+)$", text, re.M):
        env.update(item.split("=", 1) for item in shlex.split(line))
    return command, env


def _templated(command: list[str], port: int) -> tuple[str, ...]:
    out = []
    for part in command:
        part = part.replace("/srv/slownik/.venv/bin/", f"{VENV_BIN}/")
        out.append("{port}" if out and out[-1] == "--port" else part)
    return tuple(out)


def _nginx() -> str:
    if not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()):
        result = subprocess.run([str(ROOT / "scripts" / "ensure-nginx")], check=False)
        if result.returncode != 0:
            pytest.skip("nginx is not installed and could not be installed with apt-get")
    return shutil.which("nginx") or "/usr/sbin/nginx"


@pytest.fixture(scope="module")
def topology(tmp_path_factory):
    nginx = _nginx()
    workdir = tmp_path_factory.mktemp("deploy")
    database = ThrowawayDatabase(os.environ["DATABASE_URL"], "deploy", workdir)
    wsgi_port, asgi_port, http_port, https_port = (free_port() for _ in range(4))
    env = production_env(os.environ, database_url=database.url, workdir=workdir,
                         site_url=f"https://{PUBLIC}", origins=f"https://{PUBLIC}")  # fmt: skip
    # The README's /etc/slownik/env, as written (production_env relaxes these for plain HTTP).
    env.update({"ALLOWED_HOSTS": PUBLIC, "SECURE_PROXY_SSL_HEADER": "1"})
    env.pop("SECURE_SSL_REDIRECT")
    env.pop("SECURE_HSTS_SECONDS")
    servers: list[ServerProcess] = []
    proxy = None
    try:
        collect = spawn_manage(env, "collectstatic", "--noinput", "-v", "0")
        finish(spawn_manage(env, "migrate", "--noinput", "-v", "0"))
        finish(spawn_manage(env, "load_demo"))
        finish(collect)
        for name, port in (
            ("slownik-wsgi.service", wsgi_port),
            ("slownik-asgi.service", asgi_port),
        ):
            command, unit_env = unit(name)
            process = ServerProcess({**env, **unit_env}, workdir, name, _templated(command, port),
                                    port=port, own_urls=False)  # fmt: skip
            servers.append(process.start(wait=False))
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
             "-subj", f"/CN={PUBLIC}", "-keyout", str(workdir / "key.pem"),
             "-out", str(workdir / "cert.pem")],
            check=True, capture_output=True,
        )  # fmt: skip
        site = (DEPLOY / "nginx" / "slownik.conf").read_text()
        for old, new in (
            ("127.0.0.1:8000", f"127.0.0.1:{wsgi_port}"),
            ("127.0.0.1:8001", f"127.0.0.1:{asgi_port}"),
            ("listen 80;", f"listen 127.0.0.1:{http_port};"),
            ("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;"),
            (f"/etc/letsencrypt/live/{PUBLIC}/fullchain.pem", str(workdir / "cert.pem")),
            (f"/etc/letsencrypt/live/{PUBLIC}/privkey.pem", str(workdir / "key.pem")),
            ("/srv/slownik/staticfiles/", f"{workdir / 'static'}/"),
        ):
            assert old in site, old
            site = site.replace(old, new)
        site = re.sub(r"^\s*listen \[::\]:.*$", "", site, flags=re.M)  # no IPv6 on every box
        (workdir / "slownik.conf").write_text(site)
        temp = {k: workdir / k for k in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
        (workdir / "nginx.conf").write_text(
            ("user root;\n" if os.geteuid() == 0 else "")
            + f"daemon off;\npid {workdir}/nginx.pid;\nerror_log {workdir}/nginx-error.log;\n"
            "events {}\nhttp {\n  include /etc/nginx/mime.types;\n"
            f"  access_log {workdir}/nginx-access.log;\n"
            + "".join(f"  {k}_temp_path {v};\n" for k, v in temp.items()).replace(
                "body_temp", "client_body_temp")
            + f"  include {workdir}/slownik.conf;\n}}\n"
        )  # fmt: skip
        proxy = subprocess.Popen(
            [nginx, "-p", str(workdir), "-c", str(workdir / "nginx.conf")],
            stdout=subprocess.DEVNULL, stderr=(workdir / "nginx.stderr").open("wb"),
        )  # fmt: skip
        for server in servers:
            server.wait_until_ready()
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection((HOST, https_port), timeout=1).close()
                break
            except OSError:
                if proxy.poll() is not None or time.monotonic() > deadline:
                    log = workdir / "nginx-error.log"
                    raise RuntimeError(
                        (workdir / "nginx.stderr").read_text()
                        + (log.read_text() if log.exists() else "")
                    ) from None
                time.sleep(0.1)
        yield {"http": http_port, "https": https_port}
    finally:
        if proxy is not None:
            proxy.terminate()
            proxy.wait(10)
        stop_all(servers)
        database.drop()


def _https(port, method, path, body=None, headers=None):
    context = ssl._create_unverified_context()  # noqa: S323  (the test's own certificate)
    conn = http.client.HTTPSConnection(HOST, port, timeout=30, context=context)
    try:
        conn.request(method, path, body=body, headers={"Host": PUBLIC, **(headers or {})})
        response = conn.getresponse()
        return response, response.read()
    finally:
        conn.close()


def test_plain_http_is_redirected_to_https_once(topology):
    """Port 80 sends the reader to HTTPS; behind it, Django sees X-Forwarded-Proto: https
    and serves the page instead of redirecting again (no loop)."""
    conn = http.client.HTTPConnection(HOST, topology["http"], timeout=30)
    conn.request("GET", "/slownik/mcp/", headers={"Host": PUBLIC})
    response = conn.getresponse()
    assert response.status == 301
    assert response.getheader("Location") == f"https://{PUBLIC}/slownik/mcp/"
    conn.close()
    response, body = _https(topology["https"], "GET", "/slownik/mcp/")
    assert response.status == 200, body[:300]
    assert b'lang="pl"' in body
    assert response.getheader("Strict-Transport-Security")


def test_static_files_are_served_by_nginx(topology):
    """The page's stylesheet comes from STATIC_ROOT through nginx's alias."""
    _, page = _https(topology["https"], "GET", "/")
    css = re.search(rb'href="(/static/[^"]+\.css)"', page)[1].decode()
    response, _ = _https(topology["https"], "GET", css)
    assert response.status == 200


def test_an_mcp_call_through_nginx(topology):
    """An MCP tools/call (to granian) answers 200 with the term."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "get_term", "arguments": {"slug": "mcp"}}}  # fmt: skip
    response, data = _https(topology["https"], "POST", MCP_PATH, json.dumps(body),
                            {"Content-Type": "application/json"})  # fmt: skip
    assert response.status == 200, data[:300]
    assert json.loads(data)["result"]["structuredContent"]["slug"] == "mcp"


class _TlsSse(SseReader):
    def __init__(self, port, path, **kwargs):
        super().__init__(port, path, **kwargs)
        context = ssl._create_unverified_context()  # noqa: S323
        self.conn = http.client.HTTPSConnection(HOST, port, timeout=60, context=context)
        self.headers["Host"] = PUBLIC


def test_streams_through_nginx(topology):
    """A 2026-07-28 subscriptions/listen stream and a page's event stream (both to uvicorn)
    answer 200 as text/event-stream and deliver their first event unbuffered."""
    body = {"jsonrpc": "2.0", "id": "s", "method": "subscriptions/listen",
            "params": {"notifications": {"resourcesListChanged": True},
                       "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                                 "io.modelcontextprotocol/clientCapabilities": {}}}}  # fmt: skip
    listen = _TlsSse(topology["https"], MCP_PATH, method="POST", body=json.dumps(body),
                     headers={"Content-Type": "application/json",
                              "Accept": "application/json, text/event-stream",
                              "MCP-Protocol-Version": MODERN,
                              "Mcp-Method": "subscriptions/listen"})  # fmt: skip
    page = _TlsSse(topology["https"], "/slownik/mcp/zdarzenia/")
    try:
        listen.start()
        page.start()
        assert listen.opened.wait(30) and page.opened.wait(30)
        assert listen.status == 200 and page.status == 200
        assert listen.response_headers["content-type"].startswith("text/event-stream")
        _, data, _, _ = listen.next_event(timeout=20)
        assert json.loads(data)["method"] == "notifications/subscriptions/acknowledged"
        page.next_event("stream-open", timeout=20)
    finally:
        listen.close()
        page.close()


def test_slow_request_bodies_do_not_stall_the_app(topology):
    """Eight clients sending their bodies a byte a second (the issue's attack on granian
    reached directly) are held by nginx, which buffers bodies: a page still answers at once.
    RFC 9112 §9.5 leaves slow clients to the server's timeouts (client_body_timeout here)."""
    context = ssl._create_unverified_context()  # noqa: S323
    slow = []
    try:
        for _ in range(8):
            raw = socket.create_connection((HOST, topology["https"]), timeout=10)
            sock = context.wrap_socket(raw, server_hostname=PUBLIC)
            sock.sendall(
                f"POST {MCP_PATH} HTTP/1.1\r\nHost: {PUBLIC}\r\n"
                "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{".encode()
            )
            slow.append(sock)
        for _ in range(3):
            for sock in slow:
                sock.sendall(b" ")
            time.sleep(1)
        started = time.monotonic()
        response, _ = _https(topology["https"], "GET", "/slownik/json-rpc/")
        assert response.status == 200
        assert time.monotonic() - started < 5
    finally:
        for sock in slow:
            sock.close()
