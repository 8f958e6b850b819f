from django.urls import path

from battles.api import views

urlpatterns = [
    path(
        "campaigns/<uuid:campaign_id>/battles/",
        views.CampaignBattlesApi.as_view(),
        name="campaign-battles",
    ),
    path("battles/<uuid:battle_id>/", views.BattleDetailApi.as_view(), name="battle-detail"),
    path("battles/<uuid:battle_id>/log/", views.BattleLogApi.as_view(), name="battle-log"),
    path(
        "battles/<uuid:battle_id>/actions/<slug:action>/",
        views.BattleActionApi.as_view(),
        name="battle-action",
    ),
]
for step in views.BattleLifecycleApi.steps:
    urlpatterns.append(
        path(
            f"battles/<uuid:battle_id>/{step}/",
            views.BattleLifecycleApi.as_view(),
            {"step": step},
            name=f"battle-{step}",
        )
    )
