"""The glossary's MCP features: tools, resources, prompts, the presenters they share, the
result cache, the change feed and the server instance (server.py) that puts them together.
Imports the protocol core and the glossary app, never the transports."""
