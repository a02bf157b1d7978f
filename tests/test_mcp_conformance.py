"""The official MCP conformance suite as a referee, one run per protocol era.

`scripts/conformance` runs @modelcontextprotocol/conformance 0.1.16 (active suite: the
2025-11-25 handshake era) and 0.2.0-alpha.12 (`--requirements 2026-07-28`: the stateless era)
against the live server, each checked against its committed expected-failures file in
`conformance/`. A run fails on any failure (or warning) not in the file and on any listed
scenario that now passes, so the file always says exactly what the server does not do yet.
Only the scenarios that need the suite's own test fixtures (tools named `test_*`,
`test://` resources, `test_*` prompts: brief §5.4 and the scenario sources) may be listed: every
scenario a normal server can pass must pass.

The suite needs Node 22 and two npm packages (installed once into `.cache/`), and takes a while,
so it runs in one of `make test`'s two passes only: the PostgreSQL one.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from django.db import connection

from .live import ROOT

only_in_postgres_pass = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="the conformance suite runs once per `make test`, in the PostgreSQL pass",
)

SCRIPT = ROOT / "scripts" / "conformance"
BASELINES = {
    "legacy": ROOT / "conformance" / "baseline-0.1.16.yml",
    "modern": ROOT / "conformance" / "baseline-modern.yml",
}
RUN_TIMEOUT = 600
RUN_DIR_STAMP = re.compile(r"-\d{4}-\d{2}-\d{2}T[\d-]+Z$")  # server-<scenario>-<timestamp>

# Scenarios that can only pass against a server exposing the suite's fixtures (the names the
# scenarios call: test_simple_text, test://static-text, test_simple_prompt, ...). A glossary
# without a test-fixtures module fails them by design; everything else must pass.
FIXTURE_SCENARIOS = {
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "input-required-result-basic-elicitation",
    "input-required-result-basic-sampling",
    "input-required-result-basic-list-roots",
    "input-required-result-request-state",
    "input-required-result-multiple-input-requests",
    "input-required-result-multi-round",
    "input-required-result-missing-input-response",
    "input-required-result-non-tool-request",
    "input-required-result-result-type",
    "input-required-result-unsupported-methods",
    "input-required-result-tampered-state",
    "input-required-result-capability-check",
    "input-required-result-ignore-extra-params",
    "input-required-result-validate-input",
}
# Single checks of otherwise generic scenarios that drive a diagnostic fixture tool:
# `server-stateless` probes -32021 with test_missing_capability, the response stream with
# test_streaming_elicitation and per-request logLevel with test_logging_tool.
FIXTURE_CHECKS = {
    "server-stateless:sep-2575-server-rejects-undeclared-capability",
    "server-stateless:sep-2575-missing-capability-http-400",
    "server-stateless:sep-2575-http-server-no-independent-requests-on-stream",
    "server-stateless:sep-2575-server-no-log-without-loglevel",
}
# Excused by a design decision of issue 3, not by missing fixtures: the legacy era is served
# statelessly (no Mcp-Session-Id yet), so 0.1.16 warns in server-sse-multiple-streams, and a
# baseline run counts warnings. The sessions issue removes this entry.
DESIGN_EXCEPTIONS = {"server-sse-multiple-streams"}


def baseline_entries(path: Path) -> list[str]:
    """The `server:` list of an expected-failures file (a flat YAML list; no YAML library)."""
    entries, in_server = [], False
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line:
            continue
        if not line.startswith(" "):
            in_server = line == "server:"
            continue
        if in_server and line.lstrip().startswith("- "):
            entries.append(line.lstrip()[2:].strip().strip("'\""))
    return entries


@pytest.fixture(scope="module")
def conformance_installed():
    """Node 22 and both suite versions in .cache/ (a no-op when already there)."""
    result = subprocess.run(
        [str(SCRIPT), "install"], capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False
    )
    if result.returncode != 0:
        pytest.fail(f"scripts/conformance install failed:\n{result.stdout}\n{result.stderr}")


def failing_checks(output_dir: Path) -> list[str]:
    """`scenario: check-id [STATUS] message` for every FAILURE or WARNING in the results."""
    lines = []
    for checks_file in sorted(output_dir.glob("*/checks.json")):
        scenario = RUN_DIR_STAMP.sub("", checks_file.parent.name.removeprefix("server-"))
        for check in json.loads(checks_file.read_text(encoding="utf-8")):
            if check.get("status") in {"FAILURE", "WARNING"}:
                message = (check.get("errorMessage") or check.get("description") or "")[:300]
                lines.append(f"{scenario}: {check.get('id')} [{check['status']}] {message}")
    return lines


def run_suite(era: str, url: str, output_dir: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SCRIPT), era, url, "-o", str(output_dir)],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )


def report(result: subprocess.CompletedProcess, output_dir: Path) -> str:
    out = result.stdout
    summary = out[out.rfind("=== SUMMARY ===") :] if "=== SUMMARY ===" in out else out[-6000:]
    checks = "\n".join(failing_checks(output_dir)) or "(none recorded)"
    return (
        f"exit {result.returncode}\n{summary}\n--- failing or warning checks ---\n{checks}\n"
        f"--- stderr ---\n{result.stderr[-3000:]}"
    )


@pytest.fixture(scope="module")
def fixtures_server(live_site):
    """A sibling of the live server on the same database with the suite's fixtures switched on
    (MCP_CONFORMANCE_FIXTURES=1). Its pages are large enough to hold every tool in one
    `tools/list` page: some scenarios (json-schema-2020-12) read only the first page."""
    return live_site.spawn("fixtures", MCP_CONFORMANCE_FIXTURES="1", MCP_PAGE_SIZE="100")


@pytest.mark.live
@only_in_postgres_pass
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_conformance_suite_passes_except_fixture_scenarios(
    era, fixtures_server, conformance_installed, tmp_path
):
    """The official conformance suite passes against the live server with its fixtures on,
    apart from exactly the scenarios listed in the era's expected-failures file (issue:
    "Tests with real peers")."""
    result = run_suite(era, fixtures_server.mcp_url, tmp_path)
    assert result.returncode == 0, report(result, tmp_path)


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_baseline_lists_only_fixture_scenarios(era):
    """An expected-failures file may excuse only what needs the suite's test fixtures (plus the
    documented stateless-session warning); a generic scenario (initialize, lists, completion,
    subscribe, DNS rebinding, ...) may never be parked there."""
    entries = baseline_entries(BASELINES[era])
    assert entries, f"{BASELINES[era].name} lists nothing: delete it instead"
    assert len(entries) == len(set(entries))
    assert set(entries) <= FIXTURE_SCENARIOS | FIXTURE_CHECKS | DESIGN_EXCEPTIONS
