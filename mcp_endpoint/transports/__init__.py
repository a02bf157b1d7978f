"""The MCP transports: the HTTP view and middleware, legacy sessions, SSE framing, streams,
live calls and their answers, the event-store adapter around
django-eventstream, and stdio. They import the protocol core (never the glossary features:
they serve whichever server `settings.MCP_SERVER` names)."""
