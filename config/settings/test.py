"""Settings for the test suite: the same as the embedded default, with fast password hashing."""

from config.settings.base import *  # noqa: F403
from config.settings.base import STATIC_ROOT, VAR_DIR

VAR_DIR.mkdir(parents=True, exist_ok=True)
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Serve static files straight from the apps, without collectstatic.
WHITENOISE_USE_FINDERS = True

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
