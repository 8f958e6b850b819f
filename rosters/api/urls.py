from django.urls import path

from rosters.api import branches, supplies, views

urlpatterns = [
    path(
        "campaigns/<uuid:campaign_id>/branches/",
        branches.CampaignBranchesApi.as_view(),
        name="campaign-branches",
    ),
    path(
        "campaigns/<uuid:campaign_id>/branches/<uuid:branch_id>/",
        branches.CampaignBranchDetailApi.as_view(),
        name="campaign-branch-detail",
    ),
    path(
        "campaigns/<uuid:campaign_id>/branches/<uuid:branch_id>/comparison/",
        branches.CampaignBranchComparisonApi.as_view(),
        name="campaign-branch-comparison",
    ),
    path(
        "campaigns/<uuid:campaign_id>/forces/",
        views.CampaignForcesApi.as_view(),
        name="campaign-forces",
    ),
    path("forces/<uuid:force_id>/", views.ForceDetailApi.as_view(), name="force-detail"),
    path("forces/<uuid:force_id>/units/", views.ForceUnitsApi.as_view(), name="force-units"),
    path(
        "forces/<uuid:force_id>/troopers/",
        views.ForceTroopersApi.as_view(),
        name="force-troopers",
    ),
    path("units/<uuid:unit_id>/", views.UnitDetailApi.as_view(), name="unit-detail"),
    path("units/<uuid:unit_id>/history/", views.UnitHistoryApi.as_view(), name="unit-history"),
    path("troopers/<uuid:trooper_id>/", views.TrooperDetailApi.as_view(), name="trooper-detail"),
    path(
        "troopers/<uuid:trooper_id>/service-record/",
        views.TrooperServiceRecordApi.as_view(),
        name="trooper-service-record",
    ),
    path("vehicles/<uuid:vehicle_id>/", views.VehicleDetailApi.as_view(), name="vehicle-detail"),
    path(
        "forces/<uuid:force_id>/supplies/",
        supplies.SuppliesApi.as_view(),
        {"kind": "force"},
        name="force-supplies",
    ),
    path(
        "units/<uuid:unit_id>/supplies/",
        supplies.SuppliesApi.as_view(),
        {"kind": "unit"},
        name="unit-supplies",
    ),
]
for action, adjustment in views.UNIT_ACTIONS.items():
    urlpatterns.append(
        path(
            f"units/<uuid:unit_id>/{action}/",
            views.adjust_api("unit", action, adjustment).as_view(),
            name=f"unit-{action}",
        )
    )
for action, adjustment in views.TROOPER_ACTIONS.items():
    urlpatterns.append(
        path(
            f"troopers/<uuid:trooper_id>/{action}/",
            views.adjust_api("trooper", action, adjustment).as_view(),
            name=f"trooper-{action}",
        )
    )
