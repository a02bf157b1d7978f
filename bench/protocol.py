"""The MCP protocol version of the requests the benchmarks send in the 2026-07-28 form."""

MODERN = "2026-07-28"
