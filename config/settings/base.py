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
DEBUG = env.bool("DEBUG", default=True)
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
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "eventlog",
    "campaigns",
    "rosters",
    "battles",
    "pages",
    "demo",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
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

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "EXCEPTION_HANDLER": "config.errors.api_exception_handler",
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
}

# A job still pending or running this long after it was last dispatched is considered stranded
# (its message was lost to a broker outage or its worker died) and is dispatched again.
MUSTER_JOB_STRANDED_AFTER = env.float("MUSTER_JOB_STRANDED_AFTER", default=120.0)
# A job that crashed (not refused by the rules) this many times is marked failed for good.
MUSTER_JOB_MAX_ATTEMPTS = env.int("MUSTER_JOB_MAX_ATTEMPTS", default=5)
MUSTER_WORKER_HEARTBEAT_INTERVAL = env.float("MUSTER_WORKER_HEARTBEAT_INTERVAL", default=10.0)
# A projection fold for an as-of view snapshots its state every this many events.
MUSTER_SNAPSHOT_INTERVAL = env.int("MUSTER_SNAPSHOT_INTERVAL", default=1000)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # One line per task is noise when jobs run in the web process (eager mode).
        "celery.app.trace": {"level": env.str("CELERY_TASK_LOG_LEVEL", default="WARNING")},
    },
}
