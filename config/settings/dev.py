"""The embedded default: SQLite and eager Celery unless the environment says otherwise."""

from config.settings.base import *  # noqa: F403
from config.settings.base import VAR_DIR

VAR_DIR.mkdir(parents=True, exist_ok=True)
