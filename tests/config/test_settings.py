"""Configuration rules: production settings pass Django's deployment checks, secrets come
from the environment, the production entry points fail closed, and the development defaults
need nothing installed.

Each rule needs a fresh process (settings are read once per process); the processes are
started together, once for the module, and each test reads the one it states a rule about.
"""

import os
import secrets
import subprocess
import sys
from types import SimpleNamespace

import pytest

from tests.processes import ROOT

SHOW_DEBUG = "import {module}; from django.conf import settings; print(settings.DEBUG)"
PRODUCTION = {"DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(64)}
ENTRY_POINTS = ["config.wsgi", "config.asgi"]
LOG_ONE_WARNING = (
    "import os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings'); "
    "import django; django.setup(); import logging; "
    "logging.getLogger('django.request').warning('probe-7f3a')"
)

# name -> (arguments to python, environment on top of the test's, minus DEBUG and SECRET_KEY)
RUNS = {
    "check --deploy": (
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        {**PRODUCTION, "ALLOWED_HOSTS": "slownik.example.com"},
    ),
    "check without SECRET_KEY": (
        ["manage.py", "check"],
        {"DEBUG": "0", "ALLOWED_HOSTS": "x.example.com"},
    ),
    "check with no environment": (["manage.py", "check"], {}),
    "a django.request warning under DEBUG": (["-c", LOG_ONE_WARNING], {"DEBUG": "1"}),
    "database checks on SQLite": (
        ["manage.py", "check", "--database", "default", "--fail-level", "WARNING"],
        {"DATABASE_URL": "sqlite:///:memory:"},
    ),
    **{
        f"{module} {case}": (["-c", SHOW_DEBUG.format(module=module)], env)
        for module in ENTRY_POINTS
        for case, env in (("bare", {}), ("DEBUG=1", {"DEBUG": "1"}))
    },
}  # fmt: skip


@pytest.fixture(scope="module")
def runs():
    base = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY"}}
    started = {
        name: subprocess.Popen(
            [sys.executable, *args],
            cwd=ROOT,
            env={**base, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, (args, env) in RUNS.items()
    }
    results = {}
    for name, process in started.items():
        stdout, stderr = process.communicate(timeout=180)
        results[name] = SimpleNamespace(returncode=process.returncode, stdout=stdout, stderr=stderr)
    return results


def test_check_deploy_is_clean_under_production_settings(runs):
    """`manage.py check --deploy` reports no issue at all (warnings fail) with DEBUG=0."""
    result = runs["check --deploy"]
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_secret_key(runs):
    """With DEBUG=0 and no SECRET_KEY the process stops with a clear configuration error."""
    result = runs["check without SECRET_KEY"]
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


@pytest.mark.parametrize("module", ENTRY_POINTS)
def test_production_entry_points_fail_closed_without_debug(runs, module):
    """Loading a production entry point with no DEBUG in the environment means DEBUG off, so
    with no SECRET_KEY either it refuses to start (SECRET_KEY is mandatory exactly when DEBUG
    is off; with one it would serve no debug pages)."""
    refused = runs[f"{module} bare"]
    assert refused.returncode != 0
    assert "SECRET_KEY must be set" in refused.stderr
    assert refused.stdout == ""


@pytest.mark.parametrize("module", ENTRY_POINTS)
def test_debug_on_at_an_entry_point_only_when_set_explicitly(runs, module):
    """`make run` sets DEBUG=1 explicitly: the entry points honour it."""
    result = runs[f"{module} DEBUG=1"]
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


def test_manage_py_needs_no_environment_in_a_checkout(runs):
    """The README's manage.py commands work in a checkout with no environment at all: the
    development default, DEBUG on with a development-only key (with DEBUG off, the missing
    SECRET_KEY would stop it)."""
    result = runs["check with no environment"]
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_request_warning_is_logged_once(runs):
    """A django.request warning (a 4xx, under DEBUG as `make run` has it) reaches stderr once,
    through the site's one handler, not again through Django's own console handler."""
    run = runs["a django.request warning under DEBUG"]
    assert run.returncode == 0, run.stderr
    assert run.stderr.count("probe-7f3a") == 1, run.stderr


def test_the_embedded_database_passes_the_database_checks_without_warnings(runs):
    """On SQLite (the newcomer's `make run`) the database checks pass with no warning: the
    PostgreSQL-only covering columns of an index are not reported on every migrate."""
    run = runs["database checks on SQLite"]
    assert run.returncode == 0, run.stderr
    assert "W040" not in run.stdout + run.stderr
