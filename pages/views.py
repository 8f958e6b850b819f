"""The campaign list and a campaign's dashboard. Views only read through selectors; forms post to
the same services as the API (see ``pages/forms.py``)."""

from __future__ import annotations

import uuid
from collections import defaultdict

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from battles.models import Battle
from battles.review import hospital_list
from campaigns.models import Campaign, Membership
from campaigns.selectors import campaigns_for_user, invitations_for_user
from campaigns.services import invitation_accept, invitation_decline
from campaigns.visibility import Judge, reader_of
from eventlog.errors import CommandError
from pages.access import is_umpire, member, signed_in_user
from rosters.models import Force, Trooper, Unit
from rosters.vocabulary import TrooperStatus, UnitKind


def home(request: HttpRequest) -> HttpResponse:
    return redirect("pages:campaigns" if request.user.is_authenticated else "login")


@login_required
def campaign_list(request: HttpRequest) -> HttpResponse:
    user = signed_in_user(request)
    roles = dict(Membership.objects.filter(user_id=user.pk).values_list("campaign_id", "role"))
    campaigns = [
        {"campaign": c, "role": roles.get(c.id)}
        for c in campaigns_for_user(user).order_by("-created_at")
    ]
    waiting = list(invitations_for_user(user=user))
    names = dict(
        Campaign.objects.filter(id__in=[i.campaign_id for i in waiting]).values_list("id", "name")
    )
    invitations = [{"invitation": i, "campaign": names.get(i.campaign_id, "")} for i in waiting]
    return render(
        request, "pages/campaigns.html", {"campaigns": campaigns, "invitations": invitations}
    )


@login_required
@require_POST
def invitation_answer(request: HttpRequest, invitation_id: uuid.UUID) -> HttpResponse:
    """Accept or decline an invitation addressed to you; anyone else's is not found."""
    user = signed_in_user(request)
    invitation = invitations_for_user(user=user).filter(pk=invitation_id).first()
    if invitation is None:
        raise Http404("You have no such invitation.")
    answer = request.POST.get("answer")
    if answer not in ("accept", "decline"):
        messages.error(request, "Accept or decline the invitation.")
        return redirect("pages:campaigns")
    name = Campaign.objects.filter(pk=invitation.campaign_id).values_list("name", flat=True).first()
    try:
        if answer == "accept":
            invitation_accept(invitation_id=invitation.id, actor=user)
        else:
            invitation_decline(invitation_id=invitation.id, actor=user)
    except CommandError as refused:
        messages.error(request, refused.message)
        return redirect("pages:campaigns")
    if answer == "accept":
        messages.success(request, f"You joined {name} as {invitation.role}.")
        return redirect("pages:dashboard", invitation.campaign_id)
    messages.success(request, f"You declined the invitation to {name}.")
    return redirect("pages:campaigns")


def force_strengths(campaign: Campaign) -> list[dict]:
    """Each force's present strength against its TO&E, in three queries."""
    forces = list(Force.objects.filter(campaign_id=campaign.id).order_by("raised_sequence"))
    toe: dict[uuid.UUID, int] = defaultdict(int)
    units: dict[uuid.UUID, int] = defaultdict(int)
    for unit in Unit.objects.filter(campaign_id=campaign.id).exclude(status="disbanded"):
        if not UnitKind(unit.kind).is_formation:
            toe[unit.force_id] += unit.toe_strength
            units[unit.force_id] += 1
    present: dict[uuid.UUID, int] = defaultdict(int)
    for force_id, status in Trooper.objects.filter(campaign_id=campaign.id).values_list(
        "force_id", "status"
    ):
        if TrooperStatus(status).is_present:
            present[force_id] += 1
    return [
        {
            "force": force,
            "units": units[force.id],
            "present": present[force.id],
            "toe": toe[force.id],
        }
        for force in forces
    ]


@login_required
def dashboard(request: HttpRequest, campaign_id: uuid.UUID) -> HttpResponse:
    campaign, membership = member(request, campaign_id)
    reader = reader_of(membership, campaign)
    judge = Judge(reader)
    battles = [
        battle
        for battle in Battle.objects.filter(campaign_id=campaign.id).order_by(
            "day", "planned_sequence"
        )
        if judge.sees_battle(battle.id)
    ]
    names = {b.id: b.name for b in battles}

    def name_of(battle_id: uuid.UUID | None) -> str | None:
        return names.get(battle_id) if battle_id is not None else None

    upcoming = [b for b in battles if b.status in ("planned", "committed", "in_progress")]
    ended = [b for b in battles if b.status in ("ended", "resolved")]
    next_battle = None
    if ended and ended[-1].next_battle_id:
        next_battle = next((b for b in battles if b.id == ended[-1].next_battle_id), None)
    elif upcoming:
        next_battle = upcoming[0]
    strengths = force_strengths(campaign)
    for row in strengths:
        row["readable"] = reader.sees_force(row["force"].id)
        if not row["readable"]:
            row["present"] = row["toe"] = None
    return render(
        request,
        "pages/dashboard.html",
        {
            "campaign": campaign,
            "membership": membership,
            "umpire": is_umpire(membership),
            "battles": [
                {
                    "battle": b,
                    "after_attacker_win": name_of(b.next_on_attacker_win),
                    "after_defender_win": name_of(b.next_on_defender_win),
                    "next": name_of(b.next_battle_id),
                }
                for b in battles
            ],
            "next_battle": next_battle,
            "forces": strengths,
            "hospital": hospital_list(campaign.id, reader),
        },
    )
