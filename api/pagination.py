"""WordPress's pagination: `page`/`per_page`/`offset`, totals in `X-WP-Total` and
`X-WP-TotalPages`, neighbours in a `Link` header (`rel="next"`/`rel="prev"`).

The total costs a COUNT query only when it is not already known: a first page with fewer
rows than `per_page` is the whole collection (a `?slug=` lookup is one query, not two).
"""

import math
import re
from urllib.parse import unquote_plus

from rest_framework.pagination import BasePagination
from rest_framework.response import Response

from glossary.site import site_url

from .exceptions import RestError
from .listing import Page

HEADERS = ("X-WP-Total", "X-WP-TotalPages", "Link")


def bounds(params: dict) -> tuple[int, int]:
    """(start, size) of the page `page`/`per_page`/`offset` ask for."""
    per_page, page, offset = params["per_page"], params["page"], params.get("offset")
    return (offset if offset is not None else (page - 1) * per_page), per_page


class WordPressPagination(BasePagination):
    def paginate_queryset(self, queryset, request, view=None):
        """DRF's entry point, for a QuerySet or a list (revisions, search hits)."""
        start, size = bounds(view.params)
        rows = list(queryset[start : start + size])
        if isinstance(queryset, list):  # already evaluated
            total = len(queryset)
        elif start == 0 and len(rows) < size:
            total = len(rows)
        else:
            total = queryset.count()
        self.paginate_page(Page(rows, total), request, view.params)
        return rows

    def paginate_page(self, page: Page, request, params: dict) -> Page:
        """Takes the total of a page a read fetched (api/queries.py) for the headers; a page
        past the last one is WordPress's 400."""
        start, per_page = bounds(params)
        self.total, self.per_page, self.request = page.total, per_page, request
        self.pages = math.ceil(page.total / per_page)
        offset = params.get("offset")
        self.page = params["page"] if offset is None else start // per_page + 1
        if offset is None and self.page > self.pages and page.total > 0:
            raise RestError(
                "rest_post_invalid_page_number",
                "Numer strony jest większy niż liczba dostępnych stron.",
                400,
            )
        return page

    def get_paginated_response(self, data):
        return Response(data, headers=self.headers())

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
    cost more than the rest of the headers (docs/benchmarks.md, "REST lists: one statement each"). A
    query with anything but printable ASCII in it (raw bytes a client did not
    percent-encode) is encoded again from the parsed parameters."""
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
