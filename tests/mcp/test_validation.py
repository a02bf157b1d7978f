"""The fast schema check agrees with jsonschema on every declared schema (issue 16).

`core.registry.SchemaValidator` answers "valid?" with jsonschema-rs and lets jsonschema judge
and word whatever the fast check rejects; the only way the two could give a client different
answers is an instance jsonschema rejects and jsonschema-rs accepts. These tests feed every
schema the product server and the conformance server declare (method params, tool
arguments, prompt arguments) a table of instances built from the schema itself (each
property given a value of every JSON type, out-of-range strings and numbers, extra and
missing keys) and require both validators to agree on each.
"""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from mcp_endpoint.core.registry import SchemaValidator
from mcp_endpoint.core.server import get_server
from tests.mcp import conformance_server

SAMPLES = [None, True, False, 0, 1, -1, 1.0, 1.5, 51, 10**20, "", "x", "x" * 300, "a\x00b",
           [], ["x"], [1], {}, {"x": "y"}]  # fmt: skip


def _schemas():
    for server in (get_server(), conformance_server.server):
        for name, method in server.methods.items():
            yield f"{server.name} {name}", method.validator
        for name, tool in server.tools.items():
            yield f"{server.name} tool {name}", tool.validator
        for name, prompt in server.prompts.items():
            yield f"{server.name} prompt {name}", prompt.validator


def _instances(schema: dict) -> list:
    """Valid-looking objects with one property changed at a time, plus the bare samples."""
    instances = list(SAMPLES)
    properties = schema.get("properties") or {}
    base = {key: "x" for key in schema.get("required", [])}
    instances.append(base)
    for key, sub in properties.items():
        for value in SAMPLES:
            instances.append({**base, key: value})
        for nested in (sub.get("properties") or {}) if isinstance(sub, dict) else {}:
            for value in SAMPLES:
                instances.append({**base, key: {nested: value}})
        instances.append({k: v for k, v in base.items() if k != key})
    instances.append({**base, "unexpected": 1})
    return instances


@pytest.mark.parametrize(("name", "validator"), list(_schemas()), ids=lambda v: str(v)[:60])
def test_fast_check_agrees_with_jsonschema(name, validator):
    """For every declared schema and every instance of its table, SchemaValidator says valid
    exactly when jsonschema's Draft 2020-12 validator does."""
    assert isinstance(validator, SchemaValidator)
    reference = Draft202012Validator(validator.schema)
    for instance in _instances(validator.schema):
        assert validator.is_valid(instance) == reference.is_valid(instance), (name, instance)
        fast_says = _fast(validator, instance)
        if fast_says is not None:
            assert fast_says == reference.is_valid(instance), (name, instance)


def _fast(validator: SchemaValidator, instance):
    try:
        return validator.fast.is_valid(instance)
    except (ValueError, TypeError, OverflowError):
        return None
