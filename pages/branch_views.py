"""What-if branches on the pages: a campaign's branches, the form that makes one (umpires), and a
branch beside its original, unit by unit (campaigns/branches.py, rosters/branch_comparison.py).

Every form works without JavaScript. A refused form comes back with the rule's message beside
its field and nothing made.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from django import forms as django_forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from battles.models import Battle
from campaigns import branches
from campaigns.models import Campaign
from campaigns.visibility import reader_of
from eventlog.errors import CommandError
from eventlog.models import Job
from pages import forms
from pages.access import is_umpire, member, signed_in_user
from rosters import branch_comparison
from rules.options import options_schema

OPTION_ROWS = 3
# How each compared figure reads on the page.
LABELS = {
    "quality": "Quality",
    "strength": "Strength",
    "casualties": "Casualties",
    "dead": "Dead",
    "in_hospital": "In hospital",
    "fatigue": "Fatigue",
    "experience_points": "Quality points",
    "status": "Where",
}


class BranchForm(django_forms.Form):
    point = django_forms.CharField()
    name = django_forms.CharField(required=False, max_length=branches.MAX_NAME)


def _points(campaign: Campaign) -> list[dict[str, str]]:
    """The points a branch may start from: before or after each battle, in the order fought."""
    choices = []
    for battle in Battle.objects.filter(campaign_id=campaign.id).order_by(
        "day", "planned_sequence"
    ):
        choices.append({"value": f"before:{battle.id}", "label": f"Before {battle.name}"})
        if battle.status in ("ended", "resolved"):
            choices.append({"value": f"after:{battle.id}", "label": f"After {battle.name}"})
    return choices


def _option_names(campaign: Campaign) -> list[dict[str, str]]:
    schema = options_schema(campaign.ruleset)["properties"]
    return [
        {
            "name": name,
            "help": prop.get("description", ""),
            "now": json.dumps(campaign.options.get(name)),
        }
        for name, prop in sorted(schema.items())
    ]


def _branch_row(branch: Campaign) -> dict[str, Any]:
    job = branches.rerun_job(branch.id)
    origin = branch.branch_of or {}
    return {
        "campaign": branch,
        "point": origin.get("point", ""),
        "changes": origin.get("option_changes", {}),
        "job": job,
        "progress": (job.progress or {}) if job is not None else {},
    }


@login_required
@require_GET
def branch_list(request: HttpRequest, campaign_id: uuid.UUID) -> HttpResponse:
    campaign, membership = member(request, campaign_id)
    readable = {
        m
        for m in branches.branches_of(campaign.id).values_list("id", flat=True)
        if _may_read(request, m)
    }
    rows = [_branch_row(b) for b in branches.branches_of(campaign.id) if b.id in readable]
    refusal = forms.take_refusal(request)
    return render(
        request,
        "pages/branches.html",
        {
            "campaign": campaign,
            "membership": membership,
            "umpire": is_umpire(membership),
            "branches": rows,
            "points": _points(campaign),
            "options": _option_names(campaign),
            "option_rows": range(OPTION_ROWS),
            "refusal": refusal,
            "values": refusal.values if refusal is not None else {},
        },
    )


def _may_read(request: HttpRequest, campaign_id: uuid.UUID) -> bool:
    try:
        member(request, campaign_id)
    except Http404:
        return False
    return True


def _option_changes(data: Any) -> tuple[dict[str, Any], str | None, str | None]:
    """The option rows of the form: each name with its value (JSON, or else text)."""
    changes: dict[str, Any] = {}
    for row in range(OPTION_ROWS):
        name = (data.get(f"option_{row}") or "").strip()
        raw = (data.get(f"value_{row}") or "").strip()
        if not name and not raw:
            continue
        if not name or not raw:
            return {}, f"value_{row}", "Give both an option and its value, or neither."
        try:
            changes[name] = json.loads(raw)
        except ValueError:
            changes[name] = raw
    return changes, None, None


@login_required
@require_POST
def branch_create(request: HttpRequest, campaign_id: uuid.UUID) -> HttpResponse:
    campaign, membership = member(request, campaign_id)
    if not is_umpire(membership):
        raise PermissionDenied("Only the campaign's umpire may branch it.")
    path = reverse("pages:branches", args=[campaign.id])
    form = BranchForm(request.POST)
    if not form.is_valid():
        forms.invalid(request, form, name="branch", path=path)
        return redirect(f"{path}#new-branch")
    changes, bad_field, problem = _option_changes(request.POST)
    if bad_field is not None:
        forms.remember_refusal(
            request, form="branch", path=path, field=bad_field, message=problem or "", anchors=[]
        )
        return redirect(f"{path}#new-branch")
    side, _, battle = form.cleaned_data["point"].partition(":")
    try:
        battle_id = uuid.UUID(battle)
        if side not in ("before", "after"):
            raise ValueError(side)
    except ValueError:
        forms.remember_refusal(
            request, form="branch", path=path, field="point", message="Choose a point.", anchors=[]
        )
        return redirect(f"{path}#new-branch")
    try:
        point = branches.resolve_point(
            campaign.id,
            before_battle=battle_id if side == "before" else None,
            after_battle=battle_id if side == "after" else None,
        )
        made = branches.branch_create(
            original_id=campaign.id,
            actor_id=int(signed_in_user(request).pk),
            point=point,
            option_changes=changes,
            name=form.cleaned_data["name"] or None,
        )
    except CommandError as error:
        # The option rows are one field on the page: an option's refusal is shown beside them.
        field = error.field if error.field in ("point", "name") else "options"
        named = error.field not in (None, "point", "name", "options", "changes")
        forms.remember_refusal(
            request,
            form="branch",
            path=path,
            field=field,
            message=f"{error.field}: {error.message}" if named else error.message,
            anchors=["point", "name", "options"],
        )
        return redirect(f"{path}#new-branch")
    messages.success(
        request, f"Branch made {point.words}: {made.commands} commands of the original to play."
    )
    return redirect(reverse("pages:branch", args=[campaign.id, made.branch_id]))


@login_required
@require_GET
def branch_page(request: HttpRequest, campaign_id: uuid.UUID, branch_id: uuid.UUID) -> HttpResponse:
    campaign, membership = member(request, campaign_id)
    branch, _ = member(request, branch_id)
    if not branch.branch_of or str(branch.branch_of.get("campaign_id")) != str(campaign.id):
        raise Http404("No such branch of this campaign.")
    job = branches.rerun_job(branch.id)
    waiting = job is not None and job.status in (Job.Status.PENDING, Job.Status.RUNNING)
    fought = [
        b
        for b in Battle.objects.filter(campaign_id=campaign.id).order_by("day", "planned_sequence")
        if b.status in ("ended", "resolved")
    ]
    chosen = next((b for b in fought if str(b.id) == request.GET.get("as_of_battle")), None)
    comparison = None
    problem = None
    if not waiting:
        try:
            comparison = branch_comparison.compare(
                campaign.id, branch.id, as_of_battle=chosen.id if chosen else None
            )
        except CommandError as error:
            problem = error.message
            comparison = branch_comparison.compare(campaign.id, branch.id)
            chosen = None
        comparison = branch_comparison.as_seen(comparison, reader_of(membership, campaign))
        for force in comparison["forces"]:
            for unit in force["units"]:
                unit["figures"] = [
                    {
                        "label": LABELS[name],
                        "original": _shown(unit["original"][name]),
                        "branch": _shown(unit["branch"][name]) if unit["branch"] else None,
                        "differs": name in unit["differs"],
                    }
                    for name in comparison["compared"]
                ]
    origin = branch.branch_of or {}
    return render(
        request,
        "pages/branch.html",
        {
            "campaign": campaign,
            "branch": branch,
            "row": _branch_row(branch),
            "waiting": waiting,
            "comparison": comparison,
            "fought": fought,
            "chosen": chosen,
            "problem": problem,
            "may_delete": is_umpire(membership)
            and origin.get("branched_by") == signed_in_user(request).pk,
        },
    )


def _shown(value: Any) -> Any:
    """A figure as it reads: "in the line", not "in_the_line"."""
    return value.replace("_", " ") if isinstance(value, str) else value


@login_required
@require_POST
def branch_delete(
    request: HttpRequest, campaign_id: uuid.UUID, branch_id: uuid.UUID
) -> HttpResponse:
    campaign, membership = member(request, campaign_id)
    member(request, branch_id)
    if not is_umpire(membership):
        raise PermissionDenied("Only the umpire who made a branch may delete it.")
    branch = Campaign.objects.get(pk=branch_id)
    try:
        if not branch.branch_of or str(branch.branch_of.get("campaign_id")) != str(campaign.id):
            raise Http404("No such branch of this campaign.")
        branches.branch_delete(branch_id=branch_id, actor_id=int(signed_in_user(request).pk))
    except CommandError as error:
        messages.error(request, error.message)
        return redirect(reverse("pages:branch", args=[campaign.id, branch_id]))
    messages.success(request, f"The branch {branch.name} is deleted; the original is as it was.")
    return redirect(reverse("pages:branches", args=[campaign.id]))
