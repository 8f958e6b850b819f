"""Fast and Dirty campaign points and reinforcements (FaD p.66)."""

from __future__ import annotations

from django.urls import path

from battles.api import fad

urlpatterns = [
    path(
        "forces/<uuid:force_id>/campaign-points/",
        fad.ForceCampaignPointsApi.as_view(),
        name="force-campaign-points",
    ),
    path(
        "forces/<uuid:force_id>/campaign-points/spend/",
        fad.ForceCampaignPointsSpendApi.as_view(),
        name="force-campaign-points-spend",
    ),
    path(
        "forces/<uuid:force_id>/reinforcements/",
        fad.ForceReinforcementsApi.as_view(),
        name="force-reinforcements",
    ),
]
