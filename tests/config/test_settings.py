"""Configuration rules: production settings pass Django's deployment checks, secrets come
from the environment, and the development defaults need nothing installed."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

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
