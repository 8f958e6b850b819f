from django.urls import path

from pages import (
    branch_views,
    report_views,
    roster_views,
    setup_views,
    table_views,
    umpire_views,
    views,
)

app_name = "pages"

urlpatterns = [
    path("", views.home, name="home"),
    path("campaigns/", views.campaign_list, name="campaigns"),
    path(
        "invitations/<uuid:invitation_id>/",
        views.invitation_answer,
        name="invitation_answer",
    ),
    path("campaigns/new/", setup_views.campaign_create, name="campaign_create"),
    path("campaigns/<uuid:campaign_id>/", views.dashboard, name="dashboard"),
    path(
        "campaigns/<uuid:campaign_id>/options/",
        setup_views.campaign_options,
        name="campaign_options",
    ),
    path("campaigns/<uuid:campaign_id>/rosters/", setup_views.rosters, name="rosters"),
    path("campaigns/<uuid:campaign_id>/members/", setup_views.members, name="members"),
    path(
        "campaigns/<uuid:campaign_id>/members/<int:user_id>/",
        setup_views.member_change,
        name="member_change",
    ),
    path(
        "campaigns/<uuid:campaign_id>/members/<int:user_id>/remove/",
        setup_views.member_remove,
        name="member_remove",
    ),
    path(
        "campaigns/<uuid:campaign_id>/invitations/",
        setup_views.member_invite,
        name="member_invite",
    ),
    path(
        "campaigns/<uuid:campaign_id>/invitation-links/",
        setup_views.invitation_link_create,
        name="invitation_link_create",
    ),
    path(
        "campaigns/<uuid:campaign_id>/invitations/<uuid:invitation_id>/withdraw/",
        setup_views.invitation_withdraw,
        name="invitation_withdraw",
    ),
    path("join/<uuid:invitation_id>/<str:secret>/", setup_views.join, name="join"),
    path("campaigns/<uuid:campaign_id>/branches/", branch_views.branch_list, name="branches"),
    path(
        "campaigns/<uuid:campaign_id>/branches/new/",
        branch_views.branch_create,
        name="branch_create",
    ),
    path(
        "campaigns/<uuid:campaign_id>/branches/<uuid:branch_id>/",
        branch_views.branch_page,
        name="branch",
    ),
    path(
        "campaigns/<uuid:campaign_id>/branches/<uuid:branch_id>/delete/",
        branch_views.branch_delete,
        name="branch_delete",
    ),
    path("forces/<uuid:force_id>/", roster_views.force_page, name="force"),
    path("units/<uuid:unit_id>/", roster_views.unit_page, name="unit"),
    path("troopers/<uuid:trooper_id>/", roster_views.trooper_page, name="trooper"),
    path("battles/<uuid:battle_id>/", roster_views.battle_page, name="battle"),
    path(
        "campaigns/<uuid:campaign_id>/calendar/",
        umpire_views.calendar_advance,
        name="calendar_advance",
    ),
    path("campaigns/<uuid:campaign_id>/move/", umpire_views.unit_move, name="unit_move"),
    path(
        "campaigns/<uuid:campaign_id>/replacements/",
        umpire_views.replacements,
        name="replacements",
    ),
    path("campaigns/<uuid:campaign_id>/void/", umpire_views.void, name="void"),
    path("battles/<uuid:battle_id>/end/", umpire_views.battle_end, name="battle_end"),
    path("campaigns/<uuid:campaign_id>/battles/new/", table_views.battle_plan, name="battle_plan"),
    path("battles/<uuid:battle_id>/commit/", table_views.battle_commit, name="battle_commit"),
    path("battles/<uuid:battle_id>/step/<str:step>/", table_views.battle_step, name="battle_step"),
    path("battles/<uuid:battle_id>/actions/", table_views.battle_actions, name="battle_actions"),
    path(
        "battles/<uuid:battle_id>/actions/<str:action>/",
        table_views.battle_action,
        name="battle_action",
    ),
    path("battles/<uuid:battle_id>/after-action/", umpire_views.after_action, name="after_action"),
    path("battles/<uuid:battle_id>/report/", report_views.battle_report, name="battle_report"),
    path(
        "battles/<uuid:battle_id>/reconcile/",
        report_views.battle_reconcile,
        name="battle_reconcile",
    ),
    path("jobs/<uuid:job_id>/", umpire_views.job, name="job"),
]
