"""Production settings: refuse to start with debug on or the development secret key; HTTPS only.

``manage.py check --deploy --fail-level WARNING`` passes with these settings (CI runs it). Each
protection can be turned down from the environment for a deployment that needs it (a local
compose without TLS: ``SECURE_SSL_REDIRECT=false SECURE_COOKIES=false SECURE_HSTS_SECONDS=0``).
"""

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import *  # noqa: F403
from config.settings.base import DEBUG, DEFAULT_SECRET_KEY, SECRET_KEY, env

if DEBUG:
    raise ImproperlyConfigured("DEBUG must be off in production: set DEBUG=false.")
if SECRET_KEY == DEFAULT_SECRET_KEY or len(SECRET_KEY) < 32:
    raise ImproperlyConfigured(
        "Set SECRET_KEY to a long random value (at least 32 characters) in production."
    )

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = env.bool("SECURE_COOKIES", default=True)
CSRF_COOKIE_SECURE = env.bool("SECURE_COOKIES", default=True)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
# Probes and the metrics scrape come from inside the deployment over plain HTTP (a container's
# health check, Prometheus): redirecting them to HTTPS would only make them fail.
SECURE_REDIRECT_EXEMPT = [r"^livez$", r"^readyz$", r"^healthz$", r"^metrics$"]
# A year of HTTPS-only, for this host and its subdomains, once a browser has seen it.
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
# Asking to be built into browsers' preload lists is the domain owner's decision, and one that is
# slow to undo: off unless they set it. Its deploy-check warning says only that it is off.
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
