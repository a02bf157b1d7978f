"""Configuration rules: production settings pass Django's deployment checks, secrets come
from the environment, and the development defaults need nothing installed."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


def _manage(*args, env_overrides):
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY"}}
    env.update(env_overrides)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_under_production_settings():
    """`manage.py check --deploy` reports no issue at all (warnings fail) with DEBUG=0."""
    result = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        env_overrides={
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(64),
            "ALLOWED_HOSTS": "slownik.example.com",
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_secret_key():
    """With DEBUG=0 and no SECRET_KEY the process stops with a clear configuration error."""
    result = _manage("check", env_overrides={"DEBUG": "0", "ALLOWED_HOSTS": "x.example.com"})
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def _python(code: str, **env_overrides):
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY"}}
    env.update(env_overrides)
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


ENTRY_POINTS = ["config.wsgi", "config.asgi"]


@pytest.mark.parametrize("module", ENTRY_POINTS)
def test_production_entry_points_fail_closed_without_debug(module):
    """Loading a production entry point with no DEBUG in the environment means DEBUG off: with
    no SECRET_KEY either it refuses to start, and with one it serves no debug pages."""
    code = f"import {module}; from django.conf import settings; print(settings.DEBUG)"
    refused = _python(code)
    assert refused.returncode != 0
    assert "SECRET_KEY must be set" in refused.stderr
    started = _python(code, SECRET_KEY=secrets.token_urlsafe(64), ALLOWED_HOSTS="x.example")
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == "False"


@pytest.mark.parametrize("module", ENTRY_POINTS)
def test_debug_on_at_an_entry_point_only_when_set_explicitly(module):
    """`make run` sets DEBUG=1 explicitly: the entry points honour it."""
    code = f"import {module}; from django.conf import settings; print(settings.DEBUG)"
    result = _python(code, DEBUG="1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


def test_manage_py_needs_no_environment_in_a_checkout():
    """The README's manage.py commands work in a checkout with no environment at all (the
    development default: DEBUG on, a development-only key)."""
    result = _manage("check", env_overrides={})
    assert result.returncode == 0, result.stdout + result.stderr
    debug = _python(
        "import os, django; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings');"
        " django.setup(); from django.conf import settings; print(settings.DEBUG)"
    )
    assert debug.stdout.strip() == "True", debug.stderr
