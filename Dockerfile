# Muster: one image for the web process, the Celery worker and Celery beat.
FROM python:3.11-slim AS app

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DJANGO_SETTINGS_MODULE=config.settings.production \
    MUSTER_VAR_DIR=/var/lib/muster \
    STATIC_ROOT=/app/staticfiles

WORKDIR /app

# Dependencies first, from the pinned list in pyproject.toml, so code changes reuse this layer.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt

COPY . .
RUN useradd --system --create-home --home-dir /var/lib/muster muster \
    && SECRET_KEY=collectstatic-only-not-a-real-secret-0123456789 DEBUG=false \
       python manage.py collectstatic --no-input -v 0 \
    && chown -R muster /var/lib/muster

USER muster
EXPOSE 8000
CMD ["gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"]
