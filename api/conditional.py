"""Conditional GETs keyed by the content version (`selectors.content_state()`).

The ETag of a read is a hash of the content state (the version database triggers bump on
every write to a glossary table, plus the next scheduled publication), the request's path and
query, and who asks (editors may see drafts), so it changes exactly when the answer may; a
request that matches gets 304 after that one indexed query, before any other read.

Last-Modified is the time this process first saw the current state. Any process's first
sighting comes after the change that made the state, so it never claims content older than
it is; it is sent only once that second has passed, because a state seen in the same second
as the previous one would get the same HTTP date (one-second resolution) and an
If-Modified-Since from the older state would wrongly match. ETag is the validator to use.

An entry's own route (`/terms/<id>`, `/articles/<id>`) adds a token of that entry's saved
state to the tag (`"<state hash>.<entry token>"`, `entry_token`: it changes with every save
of the entry, i.e. with `updated_at`). The 304 check still needs only the state query (the
same state implies the same entry); the token is what a write's `If-Match` is compared with
(`precondition_failed`): a PUT/PATCH/POST/DELETE carrying the tag of a representation the
entry has been saved over since is refused with 412, while edits of other entries, which
change the state hash but not this entry, do not make it stale (RFC 9110 §13.1.1: the
server decides which representations an entity tag identifies).
"""

import hashlib
import time
from functools import lru_cache
from pathlib import Path

from django.http import HttpResponse
from django.utils.cache import get_conditional_response
from django.utils.http import http_date, parse_etags

from glossary import selectors
from glossary.db.cache import LRU

# Answers change with the code too: a deploy must not answer 304 to a client holding the
# previous release's representation.
_CODE = hashlib.blake2b(
    b"".join(p.read_bytes() for p in sorted(Path(__file__).parent.glob("*.py"))), digest_size=8
).hexdigest()
_FIRST_SEEN = LRU(1000)
# The request headers `get_conditional_response` reads (RFC 9110 §13.1).
_PRECONDITIONS = ("HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE", "HTTP_IF_MATCH",
                  "HTTP_IF_UNMODIFIED_SINCE")  # fmt: skip


def first_seen(state) -> float:
    seen = _FIRST_SEEN.get(state)
    if seen is None:
        seen = _FIRST_SEEN.setdefault(state, time.time())
    return seen


def has_preconditions(request) -> bool:
    """Whether the request sends a validator to compare (most reads do not)."""
    meta = getattr(request, "_request", request).META
    return any(name in meta for name in _PRECONDITIONS)


class Validators:
    _READ = object()

    def __init__(self, request, *, user_key: str, now=None, extra=None, state=_READ):
        # `now`: the view's clock, the one its `published()` reads use, so that one state
        # stands for one visible set (api/queries.py caches list totals by it). `state`: the
        # content state when the caller read it already, in the statement of its read
        # (`selectors.with_content_state`); else it is read here.
        self.state = selectors.content_state(now=now) if state is self._READ else state
        self.etag = self.last_modified = None
        if self.state is None:  # no version row (a flushed test database): nothing to key on
            return
        # `extra`: what else the answer depends on that the content state does not follow
        # (an entry's revisions, api/views/revisions.py).
        key = repr((_CODE, self.state, request.get_full_path(), user_key, extra)).encode()
        self.etag = f'"{hashlib.blake2b(key, digest_size=16).hexdigest()}"'
        seen = first_seen(self.state)
        if int(seen) < int(time.time()):
            self.last_modified = int(seen)

    def not_modified(self, request, *, entry: bool = False):
        """A 304 (or 412) response when the request's validators match, else None. `entry`:
        an entry's own route, whose tags carry the entry's token after the state hash."""
        if self.etag is None or not has_preconditions(request):
            return None  # nothing to compare (most reads): no response object built
        if entry:
            prefix = self.etag[:-1] + "."
            # If-None-Match compares weakly (RFC 9110 §13.1.2): a tag the client holds as
            # W/"…" names the same representation.
            held = [
                t.removeprefix("W/")
                for t in parse_etags(request.META.get("HTTP_IF_NONE_MATCH", ""))
            ]
            # The same content state means the same entry: the client's tag is still good.
            self.etag = next((tag for tag in held if tag.startswith(prefix)), self.etag)
        headers = self.apply(HttpResponse())
        response = get_conditional_response(
            getattr(request, "_request", request),
            etag=self.etag,
            last_modified=self.last_modified,
            response=headers,
        )
        return None if response is headers else response

    def for_entry(self, entry) -> None:
        """The tag of an entry's own route: the state hash plus the entry's token."""
        if self.etag is not None:
            state = self.etag.strip('"').split(".", 1)[0]
            self.etag = f'"{state}.{entry_token(entry)}"'

    def apply(self, response):
        if self.etag is not None and response.status_code == 200:
            response["ETag"] = self.etag
            if self.last_modified is not None:
                response["Last-Modified"] = _http_date(self.last_modified)
        return response


@lru_cache(maxsize=64)
def _http_date(seconds: int) -> str:
    """One state's Last-Modified (the second it was first seen) is sent by every read of it:
    formatted once (`email.utils` is slow for something sent with every read)."""
    return http_date(seconds)


def entry_token(entry) -> str:
    """What identifies one saved state of an entry: changes with every save (`updated_at`
    is stamped by each write path: services, import, restore), not with relinking or with
    edits of other entries."""
    key = f"{entry._meta.label}:{entry.pk}:{entry.updated_at.isoformat()}".encode()
    return hashlib.blake2b(key, digest_size=8).hexdigest()


def precondition_failed(request, entry) -> bool:
    """RFC 9110 §13.1.1 If-Match on a write: true when the header is sent and none of its
    tags names the entry as it is now (`*` names any existing entry; weak tags never match,
    the comparison is strong). No header, no precondition."""
    header = request.META.get("HTTP_IF_MATCH")
    if header is None:
        return False
    tags = parse_etags(header)
    if "*" in tags:
        return False
    token = entry_token(entry)
    return not any(tag.endswith(f'.{token}"') and not tag.startswith("W/") for tag in tags)
