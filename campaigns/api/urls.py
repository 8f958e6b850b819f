from django.urls import path

from campaigns.api import (
    archive,
    dice,
    event_stream,
    invitation_links,
    log,
    members,
    secrets,
    views,
)

urlpatterns = [
    path("campaigns/", views.CampaignListApi.as_view(), name="campaign-list"),
    path("campaigns/import/", archive.CampaignImportApi.as_view(), name="campaign-import"),
    path(
        "campaigns/<uuid:campaign_id>/export/",
        archive.CampaignExportApi.as_view(),
        name="campaign-export",
    ),
    path(
        "campaigns/<uuid:campaign_id>/", views.CampaignDetailApi.as_view(), name="campaign-detail"
    ),
    path(
        "campaigns/<uuid:campaign_id>/events/",
        log.CampaignEventsApi.as_view(),
        name="campaign-events",
    ),
    path(
        "campaigns/<uuid:campaign_id>/events/stream/",
        event_stream.CampaignEventStreamApi.as_view(),
        name="campaign-event-stream",
    ),
    path(
        "campaigns/<uuid:campaign_id>/reveals/",
        secrets.CampaignRevealsApi.as_view(),
        name="campaign-reveals",
    ),
    path(
        "campaigns/<uuid:campaign_id>/journal/",
        views.CampaignJournalApi.as_view(),
        name="campaign-journal",
    ),
    path(
        "campaigns/<uuid:campaign_id>/dice/", views.CampaignDiceApi.as_view(), name="campaign-dice"
    ),
    path(
        "campaigns/<uuid:campaign_id>/dice/epochs/close/",
        dice.DiceEpochCloseApi.as_view(),
        name="campaign-dice-epoch-close",
    ),
    path(
        "campaigns/<uuid:campaign_id>/dice/export/",
        dice.DiceExportApi.as_view(),
        name="campaign-dice-export",
    ),
    path(
        "campaigns/<uuid:campaign_id>/dice/verification/",
        dice.DiceVerificationApi.as_view(),
        name="campaign-dice-verification",
    ),
    path(
        "campaigns/<uuid:campaign_id>/members/",
        members.CampaignMembersApi.as_view(),
        name="campaign-members",
    ),
    path(
        "campaigns/<uuid:campaign_id>/members/<int:user_id>/",
        members.CampaignMemberDetailApi.as_view(),
        name="campaign-member",
    ),
    path(
        "campaigns/<uuid:campaign_id>/members/<int:user_id>/hand-over/",
        members.CampaignMemberHandOverApi.as_view(),
        name="campaign-member-hand-over",
    ),
    path(
        "campaigns/<uuid:campaign_id>/invitations/",
        members.CampaignInvitationsApi.as_view(),
        name="campaign-invitations",
    ),
    path(
        "campaigns/<uuid:campaign_id>/invitations/<uuid:invitation_id>/",
        members.CampaignInvitationDetailApi.as_view(),
        name="campaign-invitation",
    ),
    path(
        "campaigns/<uuid:campaign_id>/invitation-links/",
        invitation_links.CampaignInvitationLinksApi.as_view(),
        name="campaign-invitation-links",
    ),
    path(
        "invitation-links/<uuid:invitation_id>/accept/",
        invitation_links.InvitationLinkAcceptApi.as_view(),
        name="invitation-link-accept",
    ),
    path("invitations/", members.MyInvitationsApi.as_view(), name="invitations"),
    path(
        "invitations/<uuid:invitation_id>/accept/",
        members.InvitationAcceptApi.as_view(),
        name="invitation-accept",
    ),
    path(
        "invitations/<uuid:invitation_id>/decline/",
        members.InvitationDeclineApi.as_view(),
        name="invitation-decline",
    ),
    path(
        "campaigns/<uuid:campaign_id>/api-clients/",
        members.CampaignApiClientsApi.as_view(),
        name="campaign-api-clients",
    ),
    path(
        "campaigns/<uuid:campaign_id>/api-clients/<int:user_id>/token/",
        members.CampaignApiClientTokenApi.as_view(),
        name="campaign-api-client-token",
    ),
    path(
        "campaigns/<uuid:campaign_id>/options/",
        views.CampaignOptionsApi.as_view(),
        name="campaign-options",
    ),
    path(
        "campaigns/<uuid:campaign_id>/history/",
        views.CampaignHistoryApi.as_view(),
        name="campaign-history",
    ),
    path("rulesets/", views.RulesetListApi.as_view(), name="ruleset-list"),
    path(
        "campaigns/<uuid:campaign_id>/calendar/",
        views.CampaignCalendarApi.as_view(),
        name="campaign-calendar",
    ),
    path("event-types/", log.EventTypesApi.as_view(), name="event-types"),
    path("jobs/<uuid:job_id>/", log.JobDetailApi.as_view(), name="job-detail"),
]
