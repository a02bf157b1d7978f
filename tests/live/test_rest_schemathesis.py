"""A real peer: schemathesis runs the API's own published OpenAPI document against a live
server process (production settings, its own database filled with the demo content) and
must find no server error and no response that contradicts the document.

It runs every check except `positive_data_acceptance`: WordPress rejects some combinations
each valid alone (a page past the last one, `orderby=include` without `include`), which an
OpenAPI document cannot express. Writes run too, authenticated as an editor with an
application password over a TLS-terminating proxy (X-Forwarded-Proto with
SECURE_PROXY_SSL_HEADER), throttles raised so that the run measures the API, not the limits.
"""

import os
import subprocess
import sys

import pytest

from tests.processes import ROOT, VENV_BIN, LiveServer

pytestmark = [pytest.mark.live, pytest.mark.postgres]

EXAMPLES = 25
SEED = 20261201


@pytest.fixture(scope="module")
def api_site():
    server = LiveServer(
        name="rest",  # its own database: the session's live server keeps the demo content
        base_env={
            **os.environ,
            "SECURE_PROXY_SSL_HEADER": "1",
            "API_AUTH_FAILURES_PER_IP": "100000/min",
            "API_AUTH_FAILURES_PER_USER": "100000/min",
            "API_WRITES_PER_USER": "100000/min",
        },
    )
    try:
        server.start()
        server.manage(
            "shell", "-c",
            "from django.contrib.auth.models import Group, User; "
            "u = User.objects.create_user('redaktor', is_staff=True); "
            "u.groups.add(Group.objects.get(name='Editors'))",
        )  # fmt: skip
        made = subprocess.run(
            [sys.executable, "manage.py", "create_application_password", "redaktor", "st"],
            cwd=ROOT, env=server.env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        server.password = "".join(made.stdout.split())
        yield server
    finally:
        server.stop()


def test_schemathesis_finds_no_server_error_and_no_schema_violation(api_site, tmp_path):
    """`schemathesis run --checks all` over every operation of /wp-json/webflux/v1/openapi."""
    command = [
        str(VENV_BIN / "schemathesis"), "run", f"{api_site.url}/wp-json/webflux/v1/openapi",
        "--checks", "all", "--exclude-checks", "positive_data_acceptance",
        "--max-examples", str(EXAMPLES), "--seed", str(SEED), "--workers", "2",
        "--phases", "examples,fuzzing,stateful", "--no-color",
        "--auth", f"redaktor:{api_site.password}", "--header", "X-Forwarded-Proto: https",
        "--request-timeout", "30",
    ]  # fmt: skip
    run = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    report = run.stdout[-12000:] + run.stderr[-3000:]
    assert run.returncode == 0, report
    assert " passed" in run.stdout or "No issues found" in run.stdout, report
