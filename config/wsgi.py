import os

from django.core.wsgi import get_wsgi_application

# A served process is production unless told otherwise: DEBUG off, a real SECRET_KEY required.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
application = get_wsgi_application()
