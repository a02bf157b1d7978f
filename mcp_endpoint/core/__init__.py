"""The MCP protocol core: errors, revisions and `_meta`, the registry and the server object,
the dispatcher, the request context, pagination, multi-round-trip state, notifications and the
built-in methods. It imports neither the transports nor the glossary (tests/mcp/test_layers.py
checks the import graph); a transport feeds it bytes and a server instance declares what it
serves.
"""
