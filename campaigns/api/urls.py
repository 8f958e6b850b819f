from django.urls import path

from campaigns.api import log, views

urlpatterns = [
    path("campaigns/", views.CampaignListApi.as_view(), name="campaign-list"),
    path(
        "campaigns/<uuid:campaign_id>/", views.CampaignDetailApi.as_view(), name="campaign-detail"
    ),
    path(
        "campaigns/<uuid:campaign_id>/events/",
        log.CampaignEventsApi.as_view(),
        name="campaign-events",
    ),
    path(
        "campaigns/<uuid:campaign_id>/journal/",
        views.CampaignJournalApi.as_view(),
        name="campaign-journal",
    ),
    path(
        "campaigns/<uuid:campaign_id>/dice/", views.CampaignDiceApi.as_view(), name="campaign-dice"
    ),
    path("event-types/", log.EventTypesApi.as_view(), name="event-types"),
    path("jobs/<uuid:job_id>/", log.JobDetailApi.as_view(), name="job-detail"),
]
