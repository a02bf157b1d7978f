"""The REST API's one error shape and the one function that produces it.

Every error leaves as WordPress's `{"code": "rest_…", "message": "…", "data": {"status": N}}`
(invalid input adds `params`, a message per parameter, and `details`, a code and message per
parameter, as WordPress 5.7+ does). `RestError` is raised by our code with a code of its own;
`exception_handler` (DRF's EXCEPTION_HANDLER) maps DRF's and Django's exceptions onto the
same shape and answers anything unexpected with a logged, generic 500: never an HTML page,
never a traceback or an exception's text on the wire.
"""

import logging

from django.conf import settings
from django.core import exceptions as django_exceptions
from django.core.exceptions import NON_FIELD_ERRORS
from django.db import InterfaceError, OperationalError
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import set_rollback

logger = logging.getLogger("api")


class RestError(exceptions.APIException):
    """An error with a WordPress-style code: `RestError("rest_x", "Message.", 400)`."""

    def __init__(self, code: str, message: str, status_code: int = 400, **data):
        super().__init__(message, code)
        self.status_code = status_code
        self.code, self.message, self.data = code, message, data


def invalid_params(errors: dict[str, list[tuple[str, str]]]) -> RestError:
    """400 `rest_invalid_param` naming each bad parameter: {name: [(code, message), …]}."""
    names = ", ".join(errors)
    return RestError(
        "rest_invalid_param",
        f"Nieprawidłowe parametry: {names}.",
        400,
        params={
            name: " ".join(message for _code, message in items) for name, items in errors.items()
        },
        details={
            name: {"code": items[0][0], "message": items[0][1], "data": None}
            for name, items in errors.items()
        },
    )


def _drf_errors(detail, name: str = "") -> dict[str, list[tuple[str, str]]]:
    """DRF's nested ValidationError detail as {parameter: [(code, message)]}; an error inside
    a list or an object is reported on the top-level parameter, its position in the message
    (`[1] Wymagana poprawna liczba całkowita.`)."""
    out: dict[str, list[tuple[str, str]]] = {}

    def walk(node, param: str, where: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if param:
                    walk(value, param, f"{where}[{key}]")
                else:
                    walk(value, "body" if key == "non_field_errors" else str(key), "")
        elif isinstance(node, list):
            for item in node:
                walk(item, param, where)
        else:
            message = f"{where} {node}" if where else str(node)
            out.setdefault(param or "body", []).append((getattr(node, "code", "invalid"), message))

    walk(detail, name, "")
    return out


def django_errors(error: django_exceptions.ValidationError, names: dict[str, str]) -> RestError:
    """A model/form ValidationError as `rest_invalid_param`, model field names mapped to the
    API's (`names`); non-field errors go to the parameter their code belongs to."""
    errors: dict[str, list[tuple[str, str]]] = {}
    if hasattr(error, "error_dict"):
        for field, items in error.error_dict.items():
            for item in items:
                for message in item.messages:
                    name = names.get(field) or names.get(f"code:{item.code}") or "body"
                    if field not in (NON_FIELD_ERRORS, None) and field not in names:
                        name = field
                    errors.setdefault(name, []).append((item.code or "invalid", message))
    else:
        for item in error.error_list:
            for message in item.messages:
                name = names.get(f"code:{item.code}", "body")
                errors.setdefault(name, []).append((item.code or "invalid", message))
    return invalid_params(errors)


_BY_METHOD = {"POST": "rest_cannot_create", "PUT": "rest_cannot_edit", "PATCH": "rest_cannot_edit",
              "DELETE": "rest_cannot_delete"}  # fmt: skip


def _translate(exc, request, view) -> RestError:
    method = request.method if request is not None else "GET"
    if isinstance(exc, exceptions.ValidationError):
        return invalid_params(_drf_errors(exc.detail))
    if isinstance(exc, exceptions.ParseError):
        return RestError("rest_invalid_json", "Treść żądania nie jest poprawnym JSON-em.", 400)
    if isinstance(exc, exceptions.UnsupportedMediaType):
        return RestError(
            "rest_unsupported_media_type", "Wyślij treść żądania jako application/json.", 415
        )
    if isinstance(exc, exceptions.NotAcceptable):
        return RestError("rest_not_acceptable", "To API odpowiada tylko JSON-em.", 406)
    if isinstance(exc, exceptions.MethodNotAllowed):
        return RestError("rest_no_route", "Nie ma trasy dla tego adresu i tej metody HTTP.", 405)
    if isinstance(exc, exceptions.NotAuthenticated):
        code = _BY_METHOD.get(method, "rest_forbidden")
        return RestError(code, "Zaloguj się (hasło aplikacji albo sesja), aby to zrobić.", 401)
    if isinstance(exc, exceptions.AuthenticationFailed):
        code = exc.get_codes() if isinstance(exc.get_codes(), str) else "authentication_failed"
        code = code if code.startswith("rest_") else "rest_authentication_failed"
        return RestError(code, str(exc.detail), 401)
    if isinstance(exc, exceptions.PermissionDenied) and str(exc.detail).startswith("CSRF"):
        # DRF's SessionAuthentication: WordPress's code for a cookie login without its nonce.
        return RestError("rest_cookie_invalid_nonce", str(exc.detail), 403)
    if isinstance(exc, exceptions.PermissionDenied):
        code = _BY_METHOD.get(method, "rest_forbidden")
        return RestError(code, "Nie masz uprawnień, aby to zrobić.", 403)
    if isinstance(exc, exceptions.NotFound):
        code, message = getattr(view, "not_found", ("rest_not_found", "Nie znaleziono."))
        return RestError(code, message, 404)
    if isinstance(exc, exceptions.Throttled):
        error = RestError(
            "rest_too_many_requests",
            "Za dużo żądań; spróbuj ponownie później (nagłówek Retry-After podaje, za ile sekund).",
            429,
        )
        if exc.wait is not None:
            error.data["retry_after"] = int(exc.wait + 0.999)
        return error
    return RestError(f"rest_{exc.get_codes()}", str(exc.detail), exc.status_code)


def exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER: every error as WordPress's error object."""
    request, view = context.get("request"), context.get("view")
    if isinstance(exc, django_exceptions.RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        exc = RestError(
            "rest_request_too_large",
            f"Treść żądania jest za duża: najwyżej {limit:_} bajtów.".replace("_", "\u00a0"),
            413,
        )
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, django_exceptions.PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, django_exceptions.ValidationError):
        exc = django_errors(exc, getattr(view, "field_names", {}))
    elif isinstance(exc, django_exceptions.SuspiciousOperation):
        exc = RestError("rest_bad_request", "Nieprawidłowe żądanie.", 400)
    elif isinstance(exc, (OperationalError, InterfaceError)):
        # The database is unreachable (a restart, a failover): come back later, not a fault.
        logger.warning("Database unavailable in the REST API: %s", exc)
        set_rollback()
        seconds = settings.DATABASE_RETRY_AFTER
        return error_response(
            RestError(
                "rest_service_unavailable",
                f"Usługa chwilowo niedostępna (baza danych); spróbuj ponownie za {seconds} s.",
                503,
                retry_after=seconds,
            ),
            {"Retry-After": str(seconds)},
        )
    if not isinstance(exc, exceptions.APIException):
        logger.exception("Unexpected error in the REST API")
        set_rollback()
        return error_response(RestError("rest_internal_error", "Wewnętrzny błąd serwera.", 500))
    error = exc if isinstance(exc, RestError) else _translate(exc, request, view)
    headers = {}
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        headers["Retry-After"] = str(int(exc.wait + 0.999))
    if isinstance(exc, exceptions.MethodNotAllowed) and view is not None:
        headers["Allow"] = ", ".join(view.allowed_methods)
    set_rollback()
    return error_response(error, headers)


def error_response(error: RestError, headers: dict | None = None) -> Response:
    body = {
        "code": error.code,
        "message": error.message,
        "data": {"status": error.status_code, **error.data},
    }
    return Response(body, status=error.status_code, headers=headers)
