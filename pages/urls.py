from django.urls import path

from pages import views

app_name = "pages"

urlpatterns = [
    path("", views.home, name="home"),
    path("campaigns/", views.campaign_list, name="campaigns"),
    path("campaigns/<uuid:campaign_id>/", views.dashboard, name="dashboard"),
]
