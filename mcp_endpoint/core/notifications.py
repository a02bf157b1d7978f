"""Notifications a running call sends before its result: `notifications/message` (logging)
and `notifications/progress`.

They go through `ctx.notify`, which only a live call has (transports/calls.py: the legacy
HTTP POST that answers with an SSE stream, and stdio); elsewhere they are dropped. The log
threshold is the request's `_meta` logLevel in the modern era (never a session's: 2026-07-28
servers MUST NOT log to requests without it) and the session's `logging/setLevel` in the
legacy one.
"""

from . import protocol as p


def _log_level(ctx) -> str | None:
    if ctx.log_level is not None or ctx.era == p.MODERN:
        return ctx.log_level
    return getattr(ctx.session, "log_level", None)


def log(ctx, level: str, data, *, logger: str | None = None) -> None:
    """Send a log message if the client asked for this level or a lower one."""
    threshold = _log_level(ctx)
    if ctx.notify is None or threshold is None:
        return
    if p.LOG_LEVELS.index(level) < p.LOG_LEVELS.index(threshold):
        return
    name = logger or (ctx.server.name if ctx.server is not None else "mcp")
    ctx.notify(p.notification(p.MESSAGE, {"level": level, "logger": name, "data": data}))


def progress(ctx, done: int, total: int, message: str | None = None) -> None:
    """Report progress if the request carried a progressToken."""
    if ctx.notify is None or ctx.progress_token is None:
        return
    params = {"progressToken": ctx.progress_token, "progress": done, "total": total}
    if message:
        params["message"] = message
    ctx.notify(p.notification(p.PROGRESS, params))
