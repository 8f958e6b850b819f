"""Routes of battles/api/after_action_urls.py (filled in by its module)."""

urlpatterns: list = []
