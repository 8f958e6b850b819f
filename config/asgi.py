import os

from django.core.asgi import get_asgi_application

# A served process is production unless told otherwise: DEBUG off, a real SECRET_KEY required.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
application = get_asgi_application()
