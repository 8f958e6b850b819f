from django.urls import path

from accounts import api

urlpatterns = [
    path("token/", api.TokenObtainApi.as_view(), name="auth-token"),
    path("tokens/", api.TokenListApi.as_view(), name="auth-tokens"),
    path("tokens/<uuid:token_id>/", api.TokenDetailApi.as_view(), name="auth-token-detail"),
    path("tokens/<uuid:token_id>/rotate/", api.TokenRotateApi.as_view(), name="auth-token-rotate"),
]
