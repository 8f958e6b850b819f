"""Routes of battles/api/fad_urls.py (filled in by its module)."""

urlpatterns: list = []
