from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import obtain_auth_token

from campaigns.api.log import CampaignVoidsApi
from config.health import healthz

api_v1: list[URLPattern | URLResolver] = [
    path("", include("campaigns.api.urls")),
    path("", include("rosters.api.urls")),
    path("", include("battles.api.urls")),
    path("", include("battles.api.after_action_urls")),
    path("", include("battles.api.fad_urls")),
    path("", include("rosters.api.between_urls")),
    path("", include("battles.api.review_urls")),
    path(
        "campaigns/<uuid:campaign_id>/voids/",
        CampaignVoidsApi.as_view(),
        name="campaign-voids",
    ),
    path("auth/token/", obtain_auth_token, name="auth-token"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
]

urlpatterns = [
    path("", include("pages.urls")),
    path(
        "login/",
        auth_views.LoginView.as_view(
            template_name="pages/login.html", redirect_authenticated_user=True
        ),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    path("healthz", healthz, name="healthz"),
]

handler404 = "config.errors.json_not_found"
handler500 = "config.errors.json_server_error"
