"""The umpire's loop as forms: each view parses a POST and calls the same service the API calls.

Only the campaign's umpire may post (403 for other members, 404 for anyone else, as in the
API). Success redirects back with a message saying what happened; a refused command redirects
back too, and the page shows the rule's message beside the field it names, with nothing
appended. Commands the server rolls dice for become jobs, followed on the job page.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from battles import services as battle_services
from battles.after_action import after_action_resolve
from battles.models import Battle
from battles.regroups import umpire_regroups
from battles.selectors import battle_detail, battle_log
from campaigns.calendar import calendar_advance as advance_the_calendar
from campaigns.models import Campaign, Membership
from campaigns.selectors import history_list
from campaigns.visibility import (
    Judge,
    Reader,
    events_as_seen,
    job_error_as_seen,
    reader_of,
)
from eventlog import store
from eventlog.errors import CommandError
from eventlog.models import Job
from eventlog.services import event_void
from pages import forms
from pages.access import is_umpire, member, signed_in_user
from pages.wording import humane, unit_lines
from rosters import replacements as replacement_services
from rosters import services as roster_services
from rosters.models import Unit


def _umpire_of(request: HttpRequest, campaign_id: uuid.UUID) -> tuple[Campaign, Membership]:
    campaign, membership = member(request, campaign_id)
    if not is_umpire(membership):
        raise PermissionDenied("Only the campaign's umpire may do this.")
    return campaign, membership


def _battle_of(request: HttpRequest, battle_id: uuid.UUID) -> tuple[Campaign, Battle]:
    battle = Battle.objects.filter(pk=battle_id).first()
    if battle is None:
        raise Http404("No such battle.")
    campaign, _ = _umpire_of(request, battle.campaign_id)
    return campaign, battle


def _dashboard(campaign_id: uuid.UUID) -> str:
    return reverse("pages:dashboard", args=[campaign_id])


def _battle_page(battle_id: uuid.UUID) -> str:
    return reverse("pages:battle", args=[battle_id])


def _back(path: str, anchor: str, query: str = "") -> HttpResponseRedirect:
    return redirect(f"{path}{'?' + query if query else ''}#{anchor}")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


# --- The campaign ---------------------------------------------------------------------------------


@login_required
@require_POST
def calendar_advance(request: HttpRequest, campaign_id: uuid.UUID) -> HttpResponse:
    campaign, _ = _umpire_of(request, campaign_id)
    path = _dashboard(campaign.id)
    form = forms.CalendarForm(request.POST)
    if not form.is_valid():
        forms.invalid(request, form, name="calendar", path=path)
        return _back(path, "calendar")
    try:
        events = advance_the_calendar(
            campaign=campaign,
            actor=signed_in_user(request),
            days=form.cleaned_data["days"],
            to_day=form.cleaned_data["to_day"],
        )
    except CommandError as error:
        forms.refused(request, error, form="calendar", path=path, anchors=form.fields)
        return _back(path, "calendar")
    # The calendar event itself is the first; the rest are what the days brought.
    from_day, to_day = events[0].payload["from_day"], events[0].payload["to_day"]
    brought = len(events) - 1
    messages.success(
        request,
        f"The calendar moved from day {from_day} to day {to_day}; "
        f"{_plural(brought, 'other event')} recorded.",
    )
    return redirect(path)


@login_required
@require_POST
def unit_move(request: HttpRequest, campaign_id: uuid.UUID) -> HttpResponse:
    campaign, _ = _umpire_of(request, campaign_id)
    path = _dashboard(campaign.id)
    form = forms.UnitMoveForm(request.POST)
    if not form.is_valid():
        forms.invalid(request, form, name="move", path=path)
        return _back(path, "move")
    unit = Unit.objects.filter(campaign_id=campaign.id, id=form.cleaned_data["unit"]).first()
    if unit is None:
        forms.remember_refusal(
            request,
            form="move",
            path=path,
            field="unit",
            message="No such unit in this campaign.",
            anchors=form.fields,
        )
        return _back(path, "move")
    try:
        roster_services.unit_move(
            campaign=campaign,
            unit=unit,
            to=form.cleaned_data["to"],
            reason=form.cleaned_data["reason"],
            actor=signed_in_user(request),
        )
    except CommandError as error:
        forms.refused(request, error, form="move", path=path, anchors=form.fields)
        return _back(path, "move")
    place = form.cleaned_data["to"].replace("_", " ")
    messages.success(request, f"{unit.name} moved to {place}.")
    return _back(path, "move")


def _platoon(campaign: Campaign, platoon_id: uuid.UUID) -> Unit | None:
    return Unit.objects.filter(campaign_id=campaign.id, id=platoon_id).first()


def _assign(
    request: HttpRequest, campaign: Campaign, platoon: Unit, path: str
) -> tuple[Job | None, str]:
    """Share the rolled men by the per-squad counts; a refusal is kept for the page."""
    squads = [s.id for s in replacement_services.platoon_squads(platoon)]
    assignments, bad_input, problem = forms.squad_counts(request.POST, squads)
    if bad_input is not None:
        forms.remember_refusal(
            request,
            form="replacements",
            path=path,
            field=bad_input,
            message=problem or "",
            anchors=[bad_input],
        )
        return None, ""
    try:
        job = replacement_services.replacements_assign(
            campaign=campaign,
            platoon=platoon,
            assignments=assignments,
            dice=None,
            actor=signed_in_user(request),
        ).job
    except CommandError as error:
        # The service names an assignment by its index: put the message by that squad's count.
        forms.refused(
            request,
            error,
            form="replacements",
            path=path,
            anchors=["unit", "assignments"],
            indexed={"assignments": [forms.count_input(a["unit_id"]) for a in assignments]},
        )
        return None, ""
    total = sum(a["count"] for a in assignments)
    return job, f"Assigning {_plural(total, 'replacement')} to the squads of {platoon.name}"


def _request(
    request: HttpRequest, campaign: Campaign, platoon: Unit, path: str
) -> tuple[Job | None, str]:
    try:
        job = replacement_services.replacements_request(
            campaign=campaign, platoon=platoon, dice=None, actor=signed_in_user(request)
        ).job
    except CommandError as error:
        forms.refused(request, error, form="replacements", path=path, anchors=["unit"])
        return None, ""
    return job, f"The replacement roll of {platoon.name} is on its way"


@login_required
@require_POST
def replacements(request: HttpRequest, campaign_id: uuid.UUID) -> HttpResponse:
    """``action=request`` rolls the platoon's replacement die on the server (a job); ``assign``
    shares the rolled men out by the per-squad counts, each squad's quality check rolled on the
    server too."""
    campaign, _ = _umpire_of(request, campaign_id)
    path = _dashboard(campaign.id)
    form = forms.PlatoonForm(request.POST)
    if not form.is_valid():
        forms.invalid(request, form, name="replacements", path=path)
        return _back(path, "replacements")
    platoon = _platoon(campaign, form.cleaned_data["unit"])
    if platoon is None:
        forms.remember_refusal(
            request,
            form="replacements",
            path=path,
            field="unit",
            message="No such platoon in this campaign.",
            anchors=["unit"],
        )
        return _back(path, "replacements")
    command = _assign if request.POST.get("action") == "assign" else _request
    job, done = command(request, campaign, platoon, path)
    if job is None:
        return _back(path, "replacements", f"platoon={platoon.id}")
    assert isinstance(job, Job)  # without table dice the server rolls, in a job
    messages.success(request, f"{done}: the server rolls the dice.")
    return redirect("pages:job", job_id=job.id)


@login_required
@require_POST
def void(request: HttpRequest, campaign_id: uuid.UUID) -> HttpResponse:
    campaign, _ = _umpire_of(request, campaign_id)
    path = _dashboard(campaign.id)
    form = forms.VoidForm(request.POST)
    if not form.is_valid():
        forms.invalid(request, form, name="void", path=path)
        return _back(path, "void")
    sequence = form.cleaned_data["sequence"]
    try:
        outcome = event_void(
            campaign_id=campaign.id,
            sequence=sequence,
            reason=form.cleaned_data["reason"],
            actor_id=signed_in_user(request).pk,
        )
    except CommandError as error:
        forms.refused(request, error, form="void", path=path, anchors=form.fields)
        return _back(path, "void")
    voided = outcome.result
    messages.success(
        request,
        f"Event #{sequence} ({voided}) is voided; everything after it is recomputed without it.",
    )
    return _back(path, "void")


# --- The battle -----------------------------------------------------------------------------------


@login_required
@require_POST
def battle_end(request: HttpRequest, battle_id: uuid.UUID) -> HttpResponse:
    campaign, battle = _battle_of(request, battle_id)
    path = _battle_page(battle.id)
    detail = battle_detail(battle)
    unit_ids = [uuid.UUID(p["unit_id"]) for p in detail["participants"]]
    merged = [uuid.UUID(str(r["merged_unit_id"])) for r in umpire_regroups(campaign, battle.id)]
    outcome = forms.battle_outcome(request.POST, unit_ids, merged)
    anchors = ["winner", *(forms.objective_input(u) for u in unit_ids)]
    anchors += [forms.fate_input(u) for u in unit_ids]
    anchors += [forms.regroup_input(u) for u in merged]
    try:
        battle = battle_services.battle_end(
            campaign=campaign,
            battle=battle,
            winner=outcome.winner,
            actor=signed_in_user(request),
            **outcome.lists,
        )
    except CommandError as error:
        forms.refused(
            request, error, form="end", path=path, anchors=anchors, indexed=outcome.inputs
        )
        return _back(path, "end")
    result = "a draw" if battle.winner == "draw" else f"{battle.winner} won"
    messages.success(request, f"{battle.name} has ended: {result}.")
    return redirect(path)


@login_required
@require_POST
def after_action(request: HttpRequest, battle_id: uuid.UUID) -> HttpResponse:
    campaign, battle = _battle_of(request, battle_id)
    path = _battle_page(battle.id)
    try:
        outcome = after_action_resolve(
            campaign=campaign, battle=battle, dice=None, actor=signed_in_user(request)
        )
    except CommandError as error:
        forms.refused(request, error, form="after_action", path=path)
        return _back(path, "after-action")
    job = outcome.job
    assert job is not None  # without table dice the server rolls, in a job
    messages.success(
        request, f"The after-action resolution of {battle.name} is under way: the server rolls."
    )
    return redirect("pages:job", job_id=job.id)


# --- The job --------------------------------------------------------------------------------------

JOB_NAMES = {
    "battles.after_action": "After-action resolution",
    "battles.reinforcements_roll": "Reinforcement pool",
    replacement_services.REQUEST_JOB: "Replacement roll",
    replacement_services.ASSIGN_JOB: "Replacements assigned",
}


def job_summaries(
    job: Job, events: list[store.StoredEvent], reader: Reader
) -> dict[int, list[str]]:
    """Each of the job's events in plain words as the reader may see them, from the read models
    that tell them: the battle's log (as ``battle_log`` shows it to the reader), the histories
    of the units whose force the reader sees whole, the campaign's history."""
    sequences = {event.sequence for event in events}
    lines: dict[int, list[str]] = {}

    def add(sequence: int, summary: str) -> None:
        if sequence in sequences and summary not in lines.setdefault(sequence, []):
            lines[sequence].append(summary)

    if not sequences:
        return lines
    if job.params.get("battle_id"):
        for entry in battle_log(uuid.UUID(job.params["battle_id"]), Judge(reader)):
            add(entry["sequence"], entry["summary"])
    # The units' histories tell what the job did to each unit (quality points, fatigue, the
    # injured's recovery, replacements), each line naming its unit. Read by the job's
    # sequences, rather than unit by unit, so a battle of many units costs no more than a few.
    for sequence, summary in unit_lines(job.campaign_id, sequences, reader.sees_force):
        add(sequence, summary)
    history = history_list(campaign_id=job.campaign_id).filter(sequence__in=sequences)
    for sequence, summary in history.values_list("sequence", "summary"):
        add(sequence, summary)
    return lines


@login_required
@require_GET
def job(request: HttpRequest, job_id: uuid.UUID) -> HttpResponse:
    found = Job.objects.filter(pk=job_id).first()
    if found is None:
        raise Http404("No such job.")
    campaign, membership = member(request, found.campaign_id)
    reader = reader_of(membership, campaign)
    events = store.events_of_job(found.id) if found.status == Job.Status.SUCCEEDED else []
    events = [event for event, _ in events_as_seen(reader, events)]
    summaries = job_summaries(found, events, reader)
    battle = None
    if found.params.get("battle_id") and Judge(reader).sees_battle(found.params["battle_id"]):
        battle = Battle.objects.filter(pk=found.params["battle_id"]).first()
    platoon = None
    if found.params.get("platoon_id"):
        platoon = Unit.objects.filter(pk=found.params["platoon_id"]).first()
        if platoon is not None and not reader.sees_force(platoon.force_id):
            platoon = None
    duration = None
    if found.started_at and found.finished_at:
        duration = (found.finished_at - found.started_at).total_seconds()
    rows: list[dict[str, Any]] = [
        {
            "sequence": event.sequence,
            "type": event.type,
            "lines": summaries.get(event.sequence) or [humane(event.type)],
        }
        for event in events
    ]
    return render(
        request,
        "pages/job.html",
        {
            "job": found,
            "error": job_error_as_seen(reader, found),
            "title": JOB_NAMES.get(found.kind, humane(found.kind)),
            "campaign": campaign,
            "membership": membership,
            "umpire": is_umpire(membership),
            "battle": battle,
            "platoon": platoon,
            "events": rows,
            "duration": duration,
            "waiting": not found.is_finished,
        },
    )
