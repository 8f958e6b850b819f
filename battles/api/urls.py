from django.urls import path

from battles import actions
from battles.api import views

# Each battle action has its own route, so that the schema documents its parameters; the last
# route serves any action by name, as every route did before (an action registered later, or
# a name that is no action, which is refused).
action_routes = [
    path(
        f"battles/<uuid:battle_id>/actions/{action}/",
        views.action_api(action).as_view(),
        {"action": action},
        name=f"battle-action-{action}",
    )
    for action in sorted({name for _, name in actions.ACTIONS})
]

urlpatterns = [
    path(
        "campaigns/<uuid:campaign_id>/battles/",
        views.CampaignBattlesApi.as_view(),
        name="campaign-battles",
    ),
    path("battles/<uuid:battle_id>/", views.BattleDetailApi.as_view(), name="battle-detail"),
    path("battles/<uuid:battle_id>/log/", views.BattleLogApi.as_view(), name="battle-log"),
    *action_routes,
    path(
        "battles/<uuid:battle_id>/actions/<slug:action>/",
        views.AnyBattleActionApi.as_view(),
        name="battle-action",
    ),
    *(
        path(f"battles/<uuid:battle_id>/{view.step}/", view.as_view(), name=f"battle-{view.step}")
        for view in views.LIFECYCLE
    ),
]
