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
"""

import hashlib
import threading
import time
from pathlib import Path

from django.http import HttpResponse
from django.utils.cache import get_conditional_response
from django.utils.http import http_date

from glossary import selectors

# Answers change with the code too: a deploy must not answer 304 to a client holding the
# previous release's representation.
_CODE = hashlib.blake2b(
    b"".join(p.read_bytes() for p in sorted(Path(__file__).parent.glob("*.py"))), digest_size=8
).hexdigest()
_FIRST_SEEN: dict = {}
_LOCK = threading.Lock()


def first_seen(state) -> float:
    with _LOCK:
        seen = _FIRST_SEEN.get(state)
        if seen is None:
            if len(_FIRST_SEEN) > 1000:
                _FIRST_SEEN.clear()
            seen = _FIRST_SEEN[state] = time.time()
        return seen


class Validators:
    def __init__(self, request, *, user_key: str):
        self.state = selectors.content_state()
        self.etag = self.last_modified = None
        if self.state is None:  # no version row (a flushed test database): nothing to key on
            return
        key = repr((_CODE, self.state, request.get_full_path(), user_key)).encode()
        self.etag = f'"{hashlib.blake2b(key, digest_size=16).hexdigest()}"'
        seen = first_seen(self.state)
        if int(seen) < int(time.time()):
            self.last_modified = int(seen)

    def not_modified(self, request):
        """A 304 (or 412) response when the request's validators match, else None."""
        if self.etag is None:
            return None
        headers = self.apply(HttpResponse())
        response = get_conditional_response(
            getattr(request, "_request", request),
            etag=self.etag,
            last_modified=self.last_modified,
            response=headers,
        )
        return None if response is headers else response

    def apply(self, response):
        if self.etag is not None and response.status_code == 200:
            response["ETag"] = self.etag
            if self.last_modified is not None:
                response["Last-Modified"] = http_date(self.last_modified)
        return response
