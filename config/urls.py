from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts.views import ThrottledLoginView
from campaigns.api.log import CampaignVoidsApi
from config.api_root import ApiRootApi
from config.health import healthz, livez, readyz
from config.metrics import metrics_view

api_v1: list[URLPattern | URLResolver] = [
    path("", ApiRootApi.as_view(), name="api-root"),
    path("", include("campaigns.api.urls")),
    path("", include("rosters.api.urls")),
    path("", include("battles.api.urls")),
    path("", include("battles.api.after_action_urls")),
    path("", include("battles.api.fad_urls")),
    path("", include("battles.api.fad_scenarios")),
    path("", include("battles.api.reports")),
    path("", include("rosters.api.between_urls")),
    path("", include("webhooks.api.urls")),
    path("", include("battles.api.review_urls")),
    path(
        "campaigns/<uuid:campaign_id>/voids/",
        CampaignVoidsApi.as_view(),
        name="campaign-voids",
    ),
    path("auth/", include("accounts.urls")),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its start-up script as a file: the Content-Security-Policy allows
    # no inline script.
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="docs"),
]

urlpatterns = [
    # First: Django tries the patterns in order, and the API is what other tools poll. No page
    # begins with api/, so the order changes no answer.
    path("api/v1/", include(api_v1)),
    path("", include("pages.urls")),
    path("login/", ThrottledLoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("livez", livez, name="livez"),
    path("readyz", readyz, name="readyz"),
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics_view, name="metrics"),
]

handler403 = "config.errors.permission_denied"
handler404 = "config.errors.not_found"
handler500 = "config.errors.server_error"
