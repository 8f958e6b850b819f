"""The embedded default: SQLite and eager Celery unless the environment says otherwise."""

from config.settings.base import *  # noqa: F403
from config.settings.base import STATIC_ROOT, VAR_DIR

VAR_DIR.mkdir(parents=True, exist_ok=True)
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Serve static files straight from the apps, without collectstatic.
WHITENOISE_USE_FINDERS = True
