"""The API's description, from one source: drf-spectacular's OpenAPI 3 document, generated
once per process from the viewsets, serializers and parameter serializers. The `/wp-json/`
index (routes with their methods and arguments, as WordPress lists them) and the OPTIONS
answers (arguments plus the resource's JSON Schema with WordPress's `context` lists) are
derived from it, so the three never disagree.

Seam: this module reads the generated document's standard OpenAPI structure (`paths`,
`parameters`, `requestBody`, `components.schemas`); the OpenAPI, index and OPTIONS tests in
tests/api/test_index.py fail loudly if a drf-spectacular upgrade changes what it produces.
"""

import copy
import re

from django.conf import settings
from django.urls import reverse
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension

from glossary.db.cache import LRU
from glossary.site import site_url

from . import links

# Per site address (the documents name it): a handful in any process.
_CACHE = LRU(16)
_METHODS = ("get", "post", "put", "patch", "delete")
_ARG_KEYS = ("type", "format", "enum", "items", "minimum", "maximum", "maxLength", "minLength",
             "pattern", "maxItems", "default", "nullable", "oneOf")  # fmt: skip
RELATIONS = """

## Link relations

- `wp:term` — categories of a term (taxonomy `category`), the series of an article (`series`).
- `related` — the terms related to a term.
- `webflux:articles` — the articles that use a term.
- `webflux:terms` — the glossary terms an article uses.
- `webflux:entries` — the terms of a category, the articles of a series.
- `version-history` — an entry's revisions (editors only).
"""


class ApplicationPasswordScheme(OpenApiAuthenticationExtension):
    target_class = "api.authentication.ApplicationPasswordAuthentication"
    name = "applicationPassword"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "basic",
            "description": "Nazwa użytkownika i hasło aplikacji (panel: Hasła aplikacji), "
            "tylko przez HTTPS.",
        }


def postprocess(result, generator, request, public):
    """drf-spectacular hook: where the API lives, what its relations mean, and paths as
    WordPress writes them (no trailing slash; both forms are served)."""
    result["servers"] = [{"url": site_url()}]
    result["paths"] = {
        (path.rstrip("/") or "/"): operations for path, operations in result["paths"].items()
    }
    # Reads are public: credentials are optional there (an empty security requirement).
    for operations in result["paths"].values():
        get = operations.get("get")
        if get is not None and {} not in get.setdefault("security", []):
            get["security"].append({})
    result["info"]["description"] += RELATIONS
    return result


def openapi() -> dict:
    key = ("openapi", site_url())  # `servers` names the site's address
    schema = _CACHE.get(key)
    if schema is None:
        from drf_spectacular.generators import SchemaGenerator

        schema = _CACHE.setdefault(key, SchemaGenerator().get_schema(request=None, public=True))
    return schema


def _resolve(doc: dict, node):
    """A schema with every `$ref` replaced by what it points to."""
    if isinstance(node, dict):
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            return _resolve(doc, doc["components"]["schemas"][name])
        return {key: _resolve(doc, value) for key, value in node.items()}
    if isinstance(node, list):
        return [_resolve(doc, item) for item in node]
    return node


def _json_schema(node):
    """OpenAPI 3.0's `nullable` as JSON Schema's type list (what WordPress's schemas use)."""
    if isinstance(node, dict):
        node = {k: _json_schema(v) for k, v in node.items() if k not in ("readOnly",)}
        if node.pop("nullable", False) and "type" in node:
            node["type"] = [node["type"], "null"]
        return node
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    return node


def _arg(schema: dict, *, description: str = "", required: bool = False) -> dict:
    arg = {key: schema[key] for key in _ARG_KEYS if key in schema}
    arg = _json_schema(arg)
    if description or schema.get("description"):
        arg["description"] = description or schema["description"]
    arg["required"] = required
    return arg


def _args(doc: dict, operation: dict) -> dict:
    args = {}
    for param in operation.get("parameters", []):
        if param.get("in") in ("query", "path"):
            args[param["name"]] = _arg(
                _resolve(doc, param.get("schema", {})),
                description=param.get("description", ""),
                required=param.get("required", False),
            )
    body = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if body:
        schema = _resolve(doc, body["schema"])
        required = set(schema.get("required", ()))
        for name, prop in schema.get("properties", {}).items():
            args[name] = _arg(prop, required=name in required)
    return args


def _route_key(path: str) -> str:
    """/wp-json/webflux/v1/terms/{id} -> /webflux/v1/terms/(?P<id>[\\d]+), WordPress style."""
    path = path.removeprefix("/wp-json")
    return re.sub(
        r"\{(\w+)\}",
        lambda m: rf"(?P<{m[1]}>[\d]+)" if m[1] in ("id", "rev_id") else rf"(?P<{m[1]}>[\w-]+)",
        path,
    )


def _routes() -> dict:
    base = site_url()
    key = ("routes", base)
    routes = _CACHE.get(key)
    if routes is not None:
        return routes
    doc = openapi()
    ns = settings.MCP_NAMESPACE.strip("/")
    routes = {
        f"/{ns}": {
            "namespace": ns,
            "methods": ["GET"],
            "endpoints": [
                {
                    "methods": ["GET"],
                    "args": {
                        "namespace": {"type": "string", "default": ns, "required": False},
                        "context": {"type": "string", "default": "view", "required": False},
                    },
                }
            ],
            "_links": {"self": [{"href": links.namespace_url()}]},
        }
    }
    for path, operations in doc["paths"].items():
        endpoints: list[dict] = []
        for method in _METHODS:
            if method not in operations:
                continue
            args = _args(doc, operations[method])
            same = next((e for e in endpoints if e["args"] == args), None)
            if same is not None:
                same["methods"].append(method.upper())
            else:
                endpoints.append({"methods": [method.upper()], "args": args})
        key = _route_key(path)
        route = {
            "namespace": ns,
            "methods": [m for e in endpoints for m in e["methods"]],
            "endpoints": endpoints,
        }
        if "{" not in path:
            route["_links"] = {"self": [{"href": base + path}]}
        routes[key] = route
    # The MCP endpoint (mcp_endpoint/): JSON-RPC over Streamable HTTP, described by MCP itself.
    mcp = f"/{ns}/mcp"
    routes[mcp] = {
        "namespace": ns,
        "methods": ["POST", "GET", "DELETE"],
        "endpoints": [{"methods": ["POST", "GET", "DELETE"], "args": {}}],
        "_links": {"self": [{"href": f"{base}/wp-json{mcp}"}]},
    }
    _CACHE.put(key, routes)
    return routes


def route_for(path: str) -> tuple[str, dict] | None:
    """The index entry of the route that serves `path` (/wp-json/...)."""
    tail = path.removeprefix("/wp-json").rstrip("/")
    for key, route in _routes().items():
        if re.fullmatch(key, tail):
            return key, route
    return None


def resource_schema(serializer_class) -> dict | None:
    """WordPress's item schema for OPTIONS: JSON Schema with `context` and `readonly`."""
    doc = openapi()
    name = serializer_class.__name__.removesuffix("Serializer")
    component = doc["components"]["schemas"].get(name)
    if component is None:
        return None
    schema = _json_schema(_resolve(doc, copy.deepcopy(component)))
    contexts = getattr(serializer_class, "CONTEXTS", {})
    for field, prop in schema.get("properties", {}).items():
        prop["context"] = list(contexts.get(field, ("view", "embed", "edit")))
        prop["readonly"] = True
    return {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "title": getattr(serializer_class, "kind", "") or name.lower(),
        "type": "object",
        "properties": schema.get("properties", {}),
    }


def index() -> dict:
    ns = settings.MCP_NAMESPACE.strip("/")
    offset = timezone.localtime().utcoffset()
    return {
        "name": settings.SITE_NAME,
        "description": "Polski słownik pojęć technicznych z REST API i serwerem MCP dla agentów.",
        "url": site_url(),
        "home": site_url(),
        "gmt_offset": offset.total_seconds() / 3600 if offset else 0,
        "timezone_string": settings.TIME_ZONE,
        "namespaces": [ns],
        "authentication": {
            "application-passwords": {
                "endpoints": {
                    "authorization": site_url() + reverse("admin:api_applicationpassword_add")
                }
            }
        },
        "routes": _routes(),
        # Agents: the MCP endpoint and the texts written for them.
        "mcp": _mcp_block(ns),
        "_links": _index_links(),
    }


def _mcp_block(ns: str) -> dict:
    endpoint = f"{settings.SITE_URL}/wp-json/{ns}/mcp"
    return {
        "endpoint": endpoint,
        "transport": "streamable-http",
        "server_card": endpoint + "/server-card",
        "llms_txt": settings.SITE_URL + reverse("glossary:llms"),
    }


def _index_links() -> dict:
    return {
        "help": [{"href": "https://developer.wordpress.org/rest-api/"}],
        "service-desc": [
            {
                "href": links.namespace_url() + "/openapi",
                "type": "application/vnd.oai.openapi+json;version=3.0",
            }
        ],
    }


def namespace_index() -> dict:
    ns = settings.MCP_NAMESPACE.strip("/")
    prefix = f"/{ns}"
    return {
        "namespace": ns,
        "routes": {k: v for k, v in _routes().items() if k == prefix or k.startswith(prefix + "/")},
        "_links": {"up": [{"href": links.api_root()}], **_index_links()},
    }
