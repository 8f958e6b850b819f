"""Settings shared by every environment, read once from the environment.

With nothing set, Muster runs on a SQLite file and executes Celery tasks eagerly in-process, so a
newcomer needs no servers. ``DATABASE_URL`` and ``CELERY_BROKER_URL`` switch to PostgreSQL and a
real worker.
"""

from __future__ import annotations

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()

DEFAULT_SECRET_KEY = "insecure-development-key-change-me"
SECRET_KEY = env.str("SECRET_KEY", default=DEFAULT_SECRET_KEY)
# Off unless asked for: the development settings (config.settings.dev) turn it on, and nothing
# else should show a traceback page with the settings in it.
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

VAR_DIR = Path(env.str("MUSTER_VAR_DIR", default=str(BASE_DIR / "var")))

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "corsheaders",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "eventlog",
    "accounts",
    "campaigns",
    "rosters",
    "battles",
    "webhooks",
    "pages",
    "demo",
]

MIDDLEWARE = [
    # First: every response, a redirect or a refusal included, carries the request's id.
    "config.middleware.RequestIdMiddleware",
    # Before anything that may answer (a preflight is answered here), after the request id.
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Compresses what the next one tagged: the ETag is of the body, not of its gzip (which
    # weakens it, W/"...", as HTTP asks), and a 304 has nothing to compress.
    "config.http_cache.ApiJsonGZipMiddleware",
    "config.http_cache.ApiConditionalGetMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "config.query_guard.RefuseControlCharactersInQuery",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, so it is the first to see a view's exception: a lock or statement timeout is a 503.
    "config.middleware.DatabaseBusyMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

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
            ],
        },
    },
]

DATABASES = {
    "default": env.db_url("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'muster.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers run while the single writer appends; IMMEDIATE makes every write
    # transaction take the write lock up front, so concurrent appends queue instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
else:
    DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
    # Let psycopg keep prepared statements, so the append statement is planned once per
    # connection (see eventlog/store.py). Set DB_PREPARE_THRESHOLD=none behind a pooler in
    # transaction mode, which cannot carry prepared statements across transactions.
    prepare_threshold = env.str("DB_PREPARE_THRESHOLD", default="5")
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = (
        None if prepare_threshold.lower() == "none" else int(prepare_threshold)
    )
    # No statement runs, and no write waits for a lock, for ever: a held lock or a runaway query
    # becomes an error the API answers with 503 and Retry-After (config/errors.py), and a job
    # retries. 0 turns either off (a long data migration, say). Options in DATABASE_URL's
    # ?options= come after these, so they win.
    session_options = (
        f"-c statement_timeout={env.int('DB_STATEMENT_TIMEOUT_MS', default=15000)} "
        f"-c lock_timeout={env.int('DB_LOCK_TIMEOUT_MS', default=5000)}"
    )
    given_options = DATABASES["default"]["OPTIONS"].get("options", "")
    DATABASES["default"]["OPTIONS"]["options"] = f"{session_options} {given_options}".strip()
# Seconds a client is told to wait (Retry-After) when the database gave up on its request.
DB_BUSY_RETRY_AFTER = env.int("DB_BUSY_RETRY_AFTER", default=5)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    # Twelve characters: a passphrase of a few words, not one word and a digit.
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    {"NAME": "accounts.validators.ServiceNameValidator"},
]

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(VAR_DIR / "static")))
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "pages:campaigns"
LOGOUT_REDIRECT_URL = "login"

# Requests allowed per period (accounts/throttles.py): log-in attempts by address and by
# username, writes by user, requests of clients not logged in by address. "<n>/<second, minute,
# hour or day>".
THROTTLE_RATES = {
    "login": env.str("MUSTER_THROTTLE_LOGIN", default="10/minute"),
    "login_username": env.str("MUSTER_THROTTLE_LOGIN_USERNAME", default="30/hour"),
    "writes": env.str("MUSTER_THROTTLE_WRITES", default="300/minute"),
    "anon": env.str("MUSTER_THROTTLE_ANON", default="120/minute"),
}
# Throttles count in the cache. The default, files under VAR_DIR, is shared by every process of
# one machine (gunicorn's workers); several machines share a Redis one (CACHE_URL=redis://...).
CACHES = {
    "default": env.cache_url("CACHE_URL")
    if env.str("CACHE_URL", default="")
    else {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(VAR_DIR / "cache"),
        "OPTIONS": {"MAX_ENTRIES": 100_000},
    },
    # Rendered API reads, each under its campaign's log position (eventlog.api.read_cache):
    # in the process, so no release serves another's answers. 0 entries keeps none.
    "reads": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache"
        if env.int("MUSTER_READ_CACHE_ENTRIES", default=1000)
        else "django.core.cache.backends.dummy.DummyCache",
        "LOCATION": "muster-reads",
        "TIMEOUT": None,
        "OPTIONS": {"MAX_ENTRIES": env.int("MUSTER_READ_CACHE_ENTRIES", default=1000)},
    },
}
# API tokens expire this many days after they are made, unless asked for less (or more, up to
# the maximum).
MUSTER_TOKEN_LIFETIME_DAYS = env.int("MUSTER_TOKEN_LIFETIME_DAYS", default=30)
MUSTER_TOKEN_MAX_LIFETIME_DAYS = env.int("MUSTER_TOKEN_MAX_LIFETIME_DAYS", default=365)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "accounts.permissions.ReadOnlyTokensOnlyRead",
    ],
    "DEFAULT_THROTTLE_CLASSES": [
        "accounts.throttles.WriteRateThrottle",
        "accounts.throttles.AnonymousRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": THROTTLE_RATES,
    # Proxies in front of Muster that append to X-Forwarded-For (1 behind Caddy): the client's
    # address for the throttles is the one the nearest proxy saw. 0 trusts no header, so a client
    # cannot pick its own address.
    "NUM_PROXIES": env.int("MUSTER_NUM_PROXIES", default=0),
    "DEFAULT_SCHEMA_CLASS": "config.openapi.MusterAutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "EXCEPTION_HANDLER": "config.errors.api_exception_handler",
    # The API reads JSON, with a bound on its nesting depth (config/parsers.py); a form is refused
    # with 415. One request type per operation is also what client generators handle well.
    "DEFAULT_PARSER_CLASSES": [
        "config.parsers.BoundedJSONParser",
    ],
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Muster API",
    "DESCRIPTION": (
        "Event-sourced campaign manager for science-fiction miniature wargames. Every change is "
        "an immutable event; rosters and histories are projections of the log."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Serve Swagger UI from our own static files: nothing is fetched from the internet.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Celery: eager in-process execution unless a broker is configured.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_QUEUE", default="muster")
# A message taken by a worker that then dies is redelivered once this many seconds have passed
# without an acknowledgement; job handlers are idempotent, so a redelivery is harmless.
# Workers look for such messages every interval x throttle seconds.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=600),
    "unacked_restore_interval": env.int("CELERY_RESTORE_INTERVAL", default=10),
    "unacked_restore_throttle": env.int("CELERY_RESTORE_THROTTLE", default=6),
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE = {
    "requeue-stranded-jobs": {
        "task": "eventlog.tasks.requeue_stranded_jobs",
        "schedule": env.float("MUSTER_SWEEP_INTERVAL", default=30.0),
    },
    # Webhook deliveries that are due (new, or their retry's time has come) are sent again.
    "sweep-webhook-deliveries": {
        "task": "webhooks.tasks.sweep_webhook_deliveries",
        "schedule": env.float("MUSTER_WEBHOOK_SWEEP_INTERVAL", default=15.0),
    },
}

# A job still pending or running this long after it was last dispatched is considered stranded
# (its message was lost to a broker outage or its worker died) and is dispatched again.
MUSTER_JOB_STRANDED_AFTER = env.float("MUSTER_JOB_STRANDED_AFTER", default=120.0)
# A job that crashed (not refused by the rules) this many times is marked failed for good.
MUSTER_JOB_MAX_ATTEMPTS = env.int("MUSTER_JOB_MAX_ATTEMPTS", default=5)
MUSTER_WORKER_HEARTBEAT_INTERVAL = env.float("MUSTER_WORKER_HEARTBEAT_INTERVAL", default=10.0)
# A projection fold for an as-of view snapshots its state every this many events.
MUSTER_SNAPSHOT_INTERVAL = env.int("MUSTER_SNAPSHOT_INTERVAL", default=1000)

# Following the log (docs/adr/0016-event-feed-and-webhooks.md). A long-poll (``?wait=``) and an
# event stream hold a server worker while they wait: keep both below gunicorn's --timeout (30 s
# unless set), which kills a sync worker silent for longer.
MUSTER_EVENTS_MAX_WAIT_SECONDS = env.int("MUSTER_EVENTS_MAX_WAIT_SECONDS", default=25)
# How often a waiting reader looks at the campaign's head for a new event.
MUSTER_EVENTS_POLL_SECONDS = env.float("MUSTER_EVENTS_POLL_SECONDS", default=0.5)
MUSTER_EVENT_STREAM_SECONDS = env.float("MUSTER_EVENT_STREAM_SECONDS", default=25.0)
MUSTER_EVENT_STREAM_HEARTBEAT_SECONDS = env.float(
    "MUSTER_EVENT_STREAM_HEARTBEAT_SECONDS", default=10.0
)
# How long an EventSource waits before it reconnects, once its stream has ended.
MUSTER_EVENT_STREAM_RETRY_MS = env.int("MUSTER_EVENT_STREAM_RETRY_MS", default=1000)

# Webhooks (docs/webhooks.md). Receivers on private, loopback or link-local addresses are refused
# unless this is on (the development settings turn it on): otherwise an umpire could make the
# server call into its own network.
MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES = env.bool(
    "MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES", default=False
)
# Seconds to connect, and to wait for each read of the answer.
MUSTER_WEBHOOK_TIMEOUT_SECONDS = env.float("MUSTER_WEBHOOK_TIMEOUT_SECONDS", default=10.0)
# A failed delivery is tried again after base x 2^(attempts - 1) seconds, at most max; after
# MUSTER_WEBHOOK_MAX_ATTEMPTS failures it is given up and its webhook paused (nothing later is
# sent out of order) until the umpire redelivers it.
MUSTER_WEBHOOK_RETRY_BASE_SECONDS = env.float("MUSTER_WEBHOOK_RETRY_BASE_SECONDS", default=10.0)
MUSTER_WEBHOOK_RETRY_MAX_SECONDS = env.float("MUSTER_WEBHOOK_RETRY_MAX_SECONDS", default=3600.0)
MUSTER_WEBHOOK_MAX_ATTEMPTS = env.int("MUSTER_WEBHOOK_MAX_ATTEMPTS", default=12)
MUSTER_WEBHOOKS_PER_CAMPAIGN = env.int("MUSTER_WEBHOOKS_PER_CAMPAIGN", default=10)

# Pages and the API docs load only their own scripts; inline styles are allowed (the pages set CSS
# variables in style attributes, Swagger UI styles its widgets). Empty: no header.
CONTENT_SECURITY_POLICY = env.str(
    "CONTENT_SECURITY_POLICY",
    default=(
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; "
        "base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
    ),
)

# Web pages on other origins allowed to call the API from a browser (CORS), e.g.
# "https://tools.example.org,http://localhost:5173". Empty: none, and no CORS header is sent.
# Clients authenticate with a token header, never cookies, so credentials are not allowed.
CORS_ALLOWED_ORIGINS = env.list("CORS_ALLOWED_ORIGINS", default=[])
CORS_URLS_REGEX = r"^/api/v1/.*$"
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_HEADERS = (
    "accept",
    "authorization",
    "content-type",
    "idempotency-key",
    "if-none-match",
    "x-request-id",
)
CORS_EXPOSE_HEADERS = (
    "content-disposition",
    "etag",
    "location",
    "retry-after",
    "x-request-id",
)
CORS_PREFLIGHT_MAX_AGE = env.int("CORS_PREFLIGHT_MAX_AGE", default=3600)

# The largest campaign archive POST /campaigns/import/ takes, in bytes.
MUSTER_ARCHIVE_MAX_BYTES = env.int("MUSTER_ARCHIVE_MAX_BYTES", default=256 * 1024 * 1024)

# The bearer token that opens /metrics (and the details of /readyz); unset, /metrics is a 404.
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")

# One JSON object a line, with time, level, logger, message and request id (config/logs.py).
LOG_LEVEL = env.str("LOG_LEVEL", default="INFO")
LOGGING_CONFIG = "config.logs.configure"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "config.logs.JsonFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # Without their own handlers (Django's write plain text): their lines go up to the root's
        # JSON console like every other.
        "django": {"level": LOG_LEVEL, "propagate": True},
        "django.server": {"level": LOG_LEVEL, "propagate": True},
        "django.db.backends": {"level": "WARNING"},
        # One line per task is noise when jobs run in the web process (eager mode).
        "celery.app.trace": {"level": env.str("CELERY_TASK_LOG_LEVEL", default="WARNING")},
    },
}
