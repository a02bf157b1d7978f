"""The MCP endpoint, in three layers that only import downwards (tests/mcp/test_layers.py):
`core/` (the protocol: errors, registry and server object, dispatcher, ...), `transports/`
(HTTP, streams, live calls, stdio: serve any server) and `features/` (the glossary's tools,
resources, prompts and the server instance). The app's own modules (models, urls, the REST
index, management commands) sit on top."""
