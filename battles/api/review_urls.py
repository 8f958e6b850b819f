"""Routes for reviewing a campaign (views in ``battles/api/review.py``)."""

from __future__ import annotations

from django.urls import path

from battles.api import review

urlpatterns = [
    path(
        "units/<uuid:unit_id>/progression/",
        review.UnitProgressionApi.as_view(),
        name="unit-progression",
    ),
    path(
        "battles/<uuid:battle_id>/casualties/",
        review.BattleCasualtiesApi.as_view(),
        name="battle-casualties",
    ),
    path(
        "campaigns/<uuid:campaign_id>/hospital/",
        review.CampaignHospitalApi.as_view(),
        name="campaign-hospital",
    ),
]
