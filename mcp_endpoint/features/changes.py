"""The glossary server's change feed: what a content event (glossary/events.py) means for
a stream that follows some resource URIs (transports/streams.py asks, `Server.change_feed`).

A `change` event names one entry (`kind`, `slug`) and says whether the set of published
entries changed; a `bulk` event (a large import) names kinds only, so every followed URI of
those kinds counts as updated.
"""

from collections.abc import Collection

from glossary import events

from .presenters import ARTICLE_URI, TERM_URI

URI_PREFIXES = {"term": TERM_URI, "article": ARTICLE_URI}


class GlossaryChanges:
    channel = events.CHANGES_CHANNEL

    def changes(self, event_type: str, data: dict, uris: Collection[str]) -> tuple[list, bool]:
        """(the followed `uris` this event updates, whether the resource list changed)."""
        if event_type == events.CHANGE_EVENT:
            prefix = URI_PREFIXES.get(data.get("kind"))
            uri = f"{prefix}{data.get('slug')}" if prefix else None
            return ([uri] if uri in uris else []), bool(data.get("list_changed"))
        if event_type == events.BULK_EVENT:
            kinds = data.get("kinds", ())
            prefixes = tuple(URI_PREFIXES[k] for k in kinds if k in URI_PREFIXES)
            updated = sorted(u for u in uris if u.startswith(prefixes))
            return updated, bool(data.get("list_changed"))
        return [], False
