"""The Celery application. Tasks live in each app's ``tasks.py``."""

import os
from typing import Any

from celery import Celery
from celery.signals import setup_logging

# Importing ``config`` imports this module, so this default is every entry point's but
# manage.py's: a worker, beat, gunicorn or uvicorn started without DJANGO_SETTINGS_MODULE is
# production (DEBUG off, a real SECRET_KEY required). Development chooses config.settings.dev.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

app = Celery("muster")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@setup_logging.connect
def use_django_logging(**kwargs: Any) -> None:
    """Workers and beat log as the web does (JSON lines, ``settings.LOGGING``, ``LOG_LEVEL``)
    instead of Celery's own format: a receiver here stops Celery configuring logging at all.
    ``--loglevel`` is ignored for the same reason; set ``LOG_LEVEL``."""
    from django.conf import settings

    from config.logs import configure

    configure(settings.LOGGING)
