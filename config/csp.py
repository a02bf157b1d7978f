"""django-csp's middleware with the policy built once per process instead of per response.

Why: `csp.middleware.CSPMiddleware` builds the header text from the settings on every
response, twice (the policy and the report-only one), a visible share of a cached page's
time (docs/benchmarks.md, "Reader pages: the Content-Security-Policy text built once").
The text depends only on the settings unless a response changes the policy (the
`csp_update`/`csp_replace`/`csp_exempt` decorators) or its template used a nonce; those
responses take the library's own path. The built text is dropped when the settings change
(`override_settings` in tests), as django-permissions-policy does with its header.
"""

from __future__ import annotations

import http.client as http_client

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject
from csp.middleware import CSPMiddleware as LibraryCSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

# What a view or decorator sets on a response to change its policy (django-csp 4): a response
# carrying any of these takes the library's path.
_PER_RESPONSE = (
    "_csp_config",
    "_csp_update",
    "_csp_replace",
    "_csp_config_ro",
    "_csp_update_ro",
    "_csp_replace_ro",
    "_csp_exempt",
    "_csp_exempt_ro",
)
_DEBUG_EXEMPT = (http_client.INTERNAL_SERVER_ERROR, http_client.NOT_FOUND)

# (policy, report-only policy, their excluded path prefixes). Two threads building it at once
# build the same text; the second assignment replaces the first with an equal tuple.
_built: tuple | None = None


def _policies() -> tuple:
    global _built
    if _built is None:
        excluded = []
        for name in ("CONTENT_SECURITY_POLICY", "CONTENT_SECURITY_POLICY_REPORT_ONLY"):
            policy = getattr(settings, name, None) or {}
            excluded.append(tuple(policy.get("EXCLUDE_URL_PREFIXES", None) or ()))
        _built = (build_policy(), build_policy(report_only=True), *excluded)
    return _built


@receiver(setting_changed)
def _forget(*, setting, **kwargs) -> None:
    global _built
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        _built = None


class CSPMiddleware(LibraryCSPMiddleware):
    def process_response(self, request, response):
        if getattr(request, "_csp_nonce", None) is not None or any(
            hasattr(response, name) for name in _PER_RESPONSE
        ):
            return super().process_response(request, response)
        if response.status_code in _DEBUG_EXEMPT and settings.DEBUG:
            return response
        policy, report_only, excluded, excluded_ro = _policies()
        path = request.path_info
        if policy and HEADER not in response and not path.startswith(excluded):
            response[HEADER] = policy
        if report_only and HEADER_REPORT_ONLY not in response and not path.startswith(excluded_ro):
            response[HEADER_REPORT_ONLY] = report_only
        # As the library does: a nonce asked for after the header is written is an error, not
        # a nonce silently missing from the policy.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response
