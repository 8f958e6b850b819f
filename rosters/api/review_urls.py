"""Routes of rosters/api/review_urls.py (filled in by its module)."""

urlpatterns: list = []
