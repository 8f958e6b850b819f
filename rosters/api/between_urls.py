"""Routes for replacements between battles (SG2 P.60-61)."""

from django.urls import path

from rosters.api import between

urlpatterns = [
    path(
        "units/<uuid:unit_id>/replacements/",
        between.PlatoonReplacementsApi.as_view(),
        name="unit-replacements",
    ),
    path(
        "units/<uuid:unit_id>/replacements/request/",
        between.ReplacementsRequestApi.as_view(),
        name="unit-replacements-request",
    ),
    path(
        "units/<uuid:unit_id>/replacements/assign/",
        between.ReplacementsAssignApi.as_view(),
        name="unit-replacements-assign",
    ),
]
