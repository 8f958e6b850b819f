"""What the umpire's forms need to draw themselves, whatever page includes them.

The dashboard and the battle page pass only their own context; these tags read the rest through
the same selectors the API uses, in a fixed number of queries, and pick up a refused command
waiting for the page (see ``pages/forms.py``) so its message appears beside its field.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from typing import Any

from django import template
from django.http import HttpRequest

from battles.after_action import AFTER_ACTION_JOB
from battles.models import Battle
from battles.regroups import umpire_regroups
from battles.selectors import battle_detail
from campaigns.models import Campaign
from eventlog import store
from eventlog.events import VOIDED
from eventlog.models import Job
from pages import forms
from pages.wording import humane, umpire_lines
from rosters import replacements
from rosters.models import Unit
from rosters.selectors import CurrentRoster
from rosters.services import LOCATIONS
from rosters.vocabulary import UnitKind, UnitStatus

register = template.Library()

RECENT_EVENTS = 15


def _label(value: str | None) -> str:
    return (value or "").replace("_", " ")


def _refusal(context: template.Context) -> tuple[dict[str, Any], dict[str, Any]]:
    """The waiting refusal as ``errors[form][input]`` and the values posted as ``values[form]``."""
    request: HttpRequest | None = context.get("request")
    refusal = forms.take_refusal(request) if request is not None else None
    if refusal is None:
        return {}, {}
    error = {"field": refusal.field or "", "message": refusal.message}
    return {refusal.form: {refusal.anchor: error}}, {refusal.form: refusal.values}


def _uuid(value: Any) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except (TypeError, ValueError):
        return None


def _recent_events(campaign_id: uuid.UUID) -> list[dict[str, Any]]:
    """The campaign's last events, newest first, told in the campaign history's words where it
    has them."""
    after = max(0, store.last_sequence(campaign_id) - RECENT_EVENTS)
    events = list(store.read(campaign_id, after=after))
    # A void comes after the event it voids, so the voids of these events are among them.
    voided = {event.payload["sequence"] for event in events if event.type == VOIDED}
    summaries = umpire_lines(campaign_id, [event.sequence for event in events])
    return [
        {
            "sequence": event.sequence,
            "type": humane(event.type),
            "summary": summaries.get(event.sequence) or humane(event.type),
            "voided": event.sequence in voided,
        }
        for event in reversed(events)
    ]


def _platoon(
    campaign: Campaign, platoon_id: uuid.UUID | None, errors: dict, values: dict
) -> dict[str, Any] | None:
    """The chosen platoon's last roll, men left and on the way, and a count input per squad."""
    if platoon_id is None:
        return None
    unit = Unit.objects.filter(campaign_id=campaign.id, id=platoon_id).first()
    if unit is None or unit.kind != UnitKind.PLATOON:
        return None
    ledger = replacements.platoon_ledger(campaign.id, unit.id)
    squads = replacements.platoon_squads(unit)
    names = {str(s.id): s.name for s in squads}
    return {
        "id": str(unit.id),
        "unit": unit,
        "last_roll": ledger.last_roll,
        "left": ledger.left,
        "on_the_way": [
            {"unit": names.get(p.unit_id, ""), "count": p.count, "day": p.arrives_on_day}
            for p in ledger.pending
        ],
        "squads": [
            {
                "unit": squad,
                "input": forms.count_input(squad.id),
                "where": _label(squad.status),
                "value": values.get(forms.count_input(squad.id), ""),
                "error": errors.get(forms.count_input(squad.id)),
            }
            for squad in squads
        ],
    }


@register.simple_tag(takes_context=True)
def umpire_campaign_tools(context: template.Context, campaign: Campaign) -> dict[str, Any]:
    errors, values = _refusal(context)
    roster = CurrentRoster(campaign.id)
    # The dashboard has read the forces already; elsewhere the roster gives them.
    shown = context.get("forces")
    if shown and all("force" in row for row in shown):
        forces = {str(row["force"].id): row["force"].name for row in shown}
    else:
        forces = {force["id"]: force["name"] for force in roster.forces()}
    movable: dict[str, list[dict[str, Any]]] = defaultdict(list)
    platoons = []
    for unit in roster.all_units():
        if unit["status"] == UnitStatus.DISBANDED:
            continue
        if unit["kind"] == UnitKind.PLATOON:
            platoons.append({**unit, "force": forces.get(unit["force_id"], "")})
        if not UnitKind(unit["kind"]).is_formation:
            movable[unit["force_id"]].append({**unit, "where": _label(unit["status"])})
    request: HttpRequest | None = context.get("request")
    chosen = values.get("replacements", {}).get("unit")
    if chosen is None and request is not None:
        chosen = request.GET.get("platoon")
    return {
        "errors": errors,
        "values": values,
        "locations": [{"value": str(place), "label": _label(place)} for place in LOCATIONS],
        "units": [
            {"force": forces.get(force_id, ""), "units": units}
            for force_id, units in movable.items()
        ],
        "platoons": platoons,
        "platoon": _platoon(
            campaign, _uuid(chosen), errors.get("replacements", {}), values.get("replacements", {})
        ),
        "events": _recent_events(campaign.id),
    }


@register.simple_tag(takes_context=True)
def umpire_battle_tools(context: template.Context, battle: Any) -> dict[str, Any]:
    """``battle`` is the battle page's battle: the model, or the API's detail of it."""
    errors, values = _refusal(context)
    if isinstance(battle, dict) and "participants" in battle and "sides" in battle:
        detail = battle
    else:
        battle_id = battle["id"] if isinstance(battle, dict) else battle.pk
        detail = battle_detail(Battle.objects.get(pk=battle_id))
    end_errors, end_values = errors.get("end", {}), values.get("end", {})
    participants = []
    for p in detail["participants"]:
        objective, fate = forms.objective_input(p["unit_id"]), forms.fate_input(p["unit_id"])
        current = end_values.get(fate) or (p["status"] if p["status"] in forms.FATES else "")
        participants.append(
            {
                **p,
                "objective_input": objective,
                "objective_checked": bool(end_values.get(objective)) or p["objective_met"],
                "fate_input": fate,
                "fate": current,
                "error": end_errors.get(objective) or end_errors.get(fate),
            }
        )
    regroups = []
    if detail["status"] == Battle.Status.IN_PROGRESS:
        campaign = context.get("campaign") or Campaign.objects.get(pk=detail["campaign_id"])
        names = {p["unit_id"]: p["unit_name"] for p in detail["participants"]}
        for regroup in umpire_regroups(campaign, uuid.UUID(str(detail["id"]))):
            merged = str(regroup["merged_unit_id"])
            field = forms.regroup_input(merged)
            regroups.append(
                {
                    "input": field,
                    "merged": names.get(merged, "a unit"),
                    "joined": names.get(str(regroup["unit_id"]), "another"),
                    "checked": bool(end_values.get(field)),
                    "error": end_errors.get(field),
                }
            )
    waiting = [
        job
        for job in Job.objects.filter(campaign_id=detail["campaign_id"], kind=AFTER_ACTION_JOB)
        if job.params.get("battle_id") == str(detail["id"])
    ]
    return {
        "errors": errors,
        "values": values,
        "id": detail["id"],
        "status": detail["status"],
        "status_label": _label(detail["status"]),
        "can_end": detail["status"] == Battle.Status.IN_PROGRESS,
        "can_resolve": detail["status"] == Battle.Status.ENDED,
        "sides": [side["side"] for side in detail["sides"]],
        "winner": end_values.get("winner", ""),
        "participants": participants,
        "regroups": regroups,
        "fates": [{"value": "", "label": "still fighting"}]
        + [{"value": fate, "label": fate} for fate in forms.FATES],
        "jobs": sorted(waiting, key=lambda job: job.requested_at, reverse=True),
    }
