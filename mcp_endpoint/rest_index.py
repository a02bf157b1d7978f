"""A WordPress-style REST index at /wp-json/ and /wp-json/<namespace>, so clients that
discover routes there find the MCP endpoint. (Outside the MCP layers: it is the site's REST
surface, not a transport, and moves to the REST API app when that exists.)"""

from django.conf import settings
from django.http import JsonResponse
from django.views.decorators.http import require_safe


def _route(namespace: str, path: str, methods: list[str]) -> dict:
    return {
        "namespace": namespace,
        "methods": methods,
        "endpoints": [{"methods": methods, "args": {}}],
        "_links": {"self": [{"href": f"{settings.SITE_URL}/wp-json{path}"}]},
    }


def _routes() -> dict:
    ns = settings.MCP_NAMESPACE
    return {
        f"/{ns}": _route(ns, f"/{ns}", ["GET"]),
        # GET and DELETE serve legacy sessions (the notification stream, ending a session).
        f"/{ns}/mcp": _route(ns, f"/{ns}/mcp", ["POST", "GET", "DELETE"]),
    }


@require_safe
def rest_index(request):
    """Like WordPress's REST index (GET /wp-json/): site name, namespaces and routes."""
    return JsonResponse(
        {
            "name": settings.SITE_NAME,
            "description": "Polski słownik pojęć technicznych z serwerem MCP dla agentów.",
            "url": settings.SITE_URL,
            "home": settings.SITE_URL,
            "namespaces": [settings.MCP_NAMESPACE],
            "authentication": [],
            "routes": _routes(),
        },
        json_dumps_params={"ensure_ascii": False},
    )


@require_safe
def namespace_index(request):
    """Like WordPress's namespace index (GET /wp-json/<namespace>)."""
    return JsonResponse(
        {"namespace": settings.MCP_NAMESPACE, "routes": _routes()},
        json_dumps_params={"ensure_ascii": False},
    )
