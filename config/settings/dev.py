"""Development: SQLite and eager Celery unless the environment says otherwise, and DEBUG on.

``manage.py`` and the Celery app use these settings when ``DJANGO_SETTINGS_MODULE`` is not set
(``make run``, the README's commands); the production image sets ``config.settings.production``,
and ``config.wsgi`` / ``config.asgi`` default to it, so a served process never falls back here.
"""

from config.settings.base import *  # noqa: F403
from config.settings.base import STATIC_ROOT, VAR_DIR, env

DEBUG = env.bool("DEBUG", default=True)
# A webhook receiver on this machine (a tool under development) is allowed here.
MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES = env.bool(
    "MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES", default=True
)

VAR_DIR.mkdir(parents=True, exist_ok=True)
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Serve static files straight from the apps, without collectstatic.
WHITENOISE_USE_FINDERS = True
