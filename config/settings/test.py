"""Settings for the test suite: the same as the embedded default, with fast password hashing."""

from config.settings.base import *  # noqa: F403
from config.settings.base import CACHES, REST_FRAMEWORK, STATIC_ROOT, THROTTLE_RATES, VAR_DIR

VAR_DIR.mkdir(parents=True, exist_ok=True)
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Serve static files straight from the apps, without collectstatic.
WHITENOISE_USE_FINDERS = True

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Throttles count in this process's memory, emptied before every test (tests/conftest.py), at
# rates no test reaches; the tests of throttling set the real rates (config.settings.base).
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "reads": {**CACHES["reads"], "LOCATION": "muster-test-reads"},
}
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": dict.fromkeys(THROTTLE_RATES, "1000000/minute"),
    # The test client sends JSON, as the API reads nothing else.
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
