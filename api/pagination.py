"""WordPress's pagination: `page`/`per_page`/`offset`, totals in `X-WP-Total` and
`X-WP-TotalPages`, neighbours in a `Link` header (`rel="next"`/`rel="prev"`).

The total costs a COUNT query only when it is not already known: a first page with fewer
rows than `per_page` is the whole collection (a `?slug=` lookup is one query, not two).
"""

import math
import re
from urllib.parse import unquote_plus

from django.http import HttpResponse
from rest_framework.pagination import BasePagination
from rest_framework.response import Response

from glossary.site import site_url

from .exceptions import RestError
from .queries import JsonPage
from .renderers import CONTENT_TYPE

HEADERS = ("X-WP-Total", "X-WP-TotalPages", "Link")


class WordPressPagination(BasePagination):
    def paginate_queryset(self, queryset, request, view=None):
        params = view.params
        per_page, page, offset = params["per_page"], params["page"], params.get("offset")
        start = offset if offset is not None else (page - 1) * per_page
        rows = queryset[start : start + per_page]
        if not isinstance(rows, JsonPage):  # a page written whole is its own list
            rows = list(rows)
        if isinstance(queryset, list):  # already evaluated (search hits)
            total = len(queryset)
        elif start == 0 and len(rows) < per_page:
            total = len(rows)
        else:
            total = queryset.count()
        self.total, self.per_page, self.request = total, per_page, request
        self.pages = math.ceil(total / per_page)
        self.page = page if offset is None else start // per_page + 1
        if offset is None and page > self.pages and total > 0:
            raise RestError(
                "rest_post_invalid_page_number",
                "Numer strony jest większy niż liczba dostępnych stron.",
                400,
            )
        return rows

    def get_paginated_response(self, data):
        return Response(data, headers=self.headers())

    def page_response(self, body: bytes) -> HttpResponse:
        """A page whose JSON its statement wrote whole (`JsonPage`), with the headers of
        `get_paginated_response`, as a plain HttpResponse (DRF's views pass any through):
        a Response would only hand the same bytes to its renderer to be copied again
        (~15 µs of every such list, issue 12)."""
        return HttpResponse(body, content_type=CONTENT_TYPE, headers=self.headers())

    def headers(self) -> dict:
        headers = {"X-WP-Total": str(self.total), "X-WP-TotalPages": str(self.pages)}
        links = []
        if self.page > 1 and self.pages:
            links.append(f'<{self._url(min(self.page - 1, self.pages))}>; rel="prev"')
        if self.page < self.pages:
            links.append(f'<{self._url(self.page + 1)}>; rel="next"')
        if links:
            headers["Link"] = ", ".join(links)
        return headers

    def _url(self, page: int) -> str:
        # The request's query with its page replaced (and no offset): built once per
        # response, only the page number differs between the prev and next links.
        prefix = getattr(self, "_prefix", None)
        if prefix is None:
            encoded = _query_without_page(self.request)
            prefix = self._prefix = (
                f"{site_url()}{self.request.path}?{encoded}{'&' if encoded else ''}"
            )
        return f"{prefix}page={page}"

    def get_paginated_response_schema(self, schema):
        return schema


_PAGING = frozenset({"page", "offset"})
_PRINTABLE = re.compile(r"^[!-~]*$")  # ASCII without spaces or control characters


def _query_without_page(request) -> str:
    """The request's query string without `page` and `offset`, its other parameters as the
    client wrote them (in order). Why: copying the parsed QueryDict and encoding it again
    cost ~40 µs a list (issue 12). A query with anything but printable ASCII in it (raw
    bytes a client did not percent-encode) is encoded again from the parsed parameters."""
    raw = request.META.get("QUERY_STRING", "")
    if not _PRINTABLE.match(raw):
        query = request.query_params.copy()
        for name in _PAGING:
            query.pop(name, None)
        return query.urlencode()
    return "&".join(
        part
        for part in raw.split("&")
        if part and unquote_plus(part.split("=", 1)[0]) not in _PAGING
    )
