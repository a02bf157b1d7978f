"""The server object (mcp_endpoint/core/server.py, STYLE §7): an instance owns its tables,
rejects duplicates when they are declared, derives its capabilities from what is registered,
decides what a result cache may answer from each declaration's flags (never from where its
handler was written), and the transports serve the one `settings.MCP_SERVER` names. Servers
here are built in-process, beside the product's."""

import orjson
import pytest
from django.core.exceptions import ImproperlyConfigured

from mcp_endpoint.core import protocol as p
from mcp_endpoint.core.context import RequestContext
from mcp_endpoint.core.dispatcher import Dispatcher
from mcp_endpoint.core.registry import Features, Resource, ToolResult
from mcp_endpoint.core.server import Server, get_server
from tests.mcp import conformance_server

NO_ARGS = {"type": "object", "properties": {}}


def tool(features, name, **flags):
    features.tool(
        name=name, title=name, description=name, input_schema=NO_ARGS, output_schema=None,
        **flags,
    )(lambda arguments, ctx: ToolResult(f"{name} ran"))  # fmt: skip


def ask(server, method, params=None, **ctx):
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    context = RequestContext("http", era=p.LEGACY, **ctx)
    return Dispatcher(server).handle_payload(orjson.dumps(message), context).body


def test_a_name_declared_twice_is_refused():
    """Declaring a tool twice, or including two feature sets that share a name, raises
    ImproperlyConfigured at declaration time, not on a request."""
    features = Features()
    tool(features, "a")
    with pytest.raises(ImproperlyConfigured):
        tool(features, "a")
    other = Features()
    tool(other, "a")
    server = Server(name="s")
    server.include(features)
    with pytest.raises(ImproperlyConfigured):
        server.include(other)


@pytest.mark.parametrize(
    ("build", "push", "expected"),
    [
        pytest.param(lambda s: None, True, {"completions": {}, "logging": {}}, id="builtins"),
        pytest.param(
            lambda s: tool(s, "t"), False,
            {"tools": {"listChanged": False}, "completions": {}, "logging": {}}, id="a-tool",
        ),
        pytest.param(
            lambda s: s.resource(Resource("x://a", "a", "A", "a", "text/plain", dict)), True,
            {"resources": {"subscribe": False, "listChanged": False}, "completions": {},
             "logging": {}}, id="resources-without-a-change-feed",
        ),
    ],
)  # fmt: skip
def test_capabilities_are_derived_from_what_is_registered(build, push, expected):
    """2025-11-25 basic/lifecycle §Capability Negotiation: a server declares exactly what it
    implements; here what is registered decides it."""
    server = Server(name="s")
    build(server)
    assert server.capabilities(push=push) == expected
    assert Server(name="bare", builtins=False).capabilities(push=True) == {}


def test_resource_updates_need_a_change_feed_and_a_push_transport():
    """The glossary server has a change feed: HTTP (push) declares subscriptions and list
    changes, stdio does not."""
    server = get_server()
    assert server.change_feed is not None
    assert server.capabilities(push=True)["resources"] == {"subscribe": True, "listChanged": True}
    assert server.capabilities(push=False)["resources"] == {
        "subscribe": False,
        "listChanged": False,
    }


class RecordingCache:
    """A result cache that remembers what it was asked to store."""

    def __init__(self):
        self.stored = {}

    def key(self, method, params, ctx):
        return (method, orjson.dumps(params, option=orjson.OPT_SORT_KEYS))

    def get(self, key):
        return self.stored.get(key)

    def put(self, key, result):
        self.stored[key] = result


def test_only_declarations_flagged_cacheable_reach_the_result_cache():
    """Whether a call may be cached is its declaration's flag: a cacheable tool is stored,
    one without the flag and an interactive one never are."""
    server = Server(name="s")
    tool(server, "cached", cacheable=True)
    tool(server, "plain")
    tool(server, "talks", cacheable=True, interactive=True)
    server.result_cache = cache = RecordingCache()
    for name in ("cached", "plain", "talks"):
        assert ask(server, p.TOOLS_CALL, {"name": name})["result"]["isError"] is False
    assert [orjson.loads(key[1])["name"] for key in cache.stored] == ["cached"]
    # A call that can talk to the client (a live call's ctx.notify) is never cached either.
    cache.stored.clear()
    ask(server, p.TOOLS_CALL, {"name": "cached"}, notify=lambda message: None)
    assert cache.stored == {}


def test_the_dispatcher_serves_the_server_it_is_given():
    """Two servers in one process answer from their own tables."""
    one, two = Server(name="one"), Server(name="two")
    tool(one, "only_in_one")
    names = [t["name"] for t in ask(one, p.TOOLS_LIST)["result"]["tools"]]
    assert names == ["only_in_one"]
    assert ask(two, p.TOOLS_LIST)["result"]["tools"] == []
    assert ask(two, p.TOOLS_CALL, {"name": "only_in_one"})["error"]["code"] == -32602


def test_the_transports_serve_the_server_the_setting_names(settings):
    """settings.MCP_SERVER picks the served instance; a path to anything else is refused."""
    assert get_server().tools.keys() >= {"get_term", "search_term"}
    settings.MCP_SERVER = "tests.mcp.conformance_server.server"
    assert get_server() is conformance_server.server
    settings.MCP_SERVER = "tests.mcp.conformance_server.fixtures"
    with pytest.raises(ImproperlyConfigured):
        get_server()
