"""Routes of rosters/api/between_urls.py (filled in by its module)."""

urlpatterns: list = []
