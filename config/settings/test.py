"""Settings for the test suite: the same as the embedded default, with fast password hashing."""

from config.settings.base import *  # noqa: F403
from config.settings.base import VAR_DIR

VAR_DIR.mkdir(parents=True, exist_ok=True)

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
