"""The battle at the table: the umpire commits units, starts the battle, moves the turn on and
records every battle action of the campaign's ruleset from the pages.

Each action's form is generated from its parameters (:mod:`pages.table_forms`). Its dice come
from the action's dice prompt, the same one ``GET /api/v1/battles/{id}/actions/{action}/``
answers: a field per die, labelled with the die, its purpose and whom it is for, extended as
the faces entered decide the next dice; or the server rolls them in a job. Every post goes
through the same commands the API runs, so a refusal appends nothing and its message is shown
beside the field it names.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from battles import services as battle_services
from battles.actions import ACTIONS, action_command, action_perform
from battles.fire_support import support_state
from battles.models import Battle, BattleLogEntry, BattleSide, Participant
from campaigns.models import Campaign
from eventlog import commands
from eventlog.errors import CommandError
from pages.access import is_umpire, member, signed_in_user
from pages.table_forms import (
    Choice,
    Entities,
    FormField,
    faces_from,
    form_fields,
    params_from,
    with_values,
)
from rosters.models import Force, Trooper, Unit, Vehicle
from rosters.vocabulary import TrooperStatus, UnitKind


def _umpire_battle(request: HttpRequest, battle_id: uuid.UUID) -> tuple[Campaign, Battle]:
    battle = Battle.objects.filter(pk=battle_id).first()
    if battle is None:
        raise Http404("No such battle.")
    campaign, membership = member(request, battle.campaign_id)
    if not is_umpire(membership):
        raise PermissionDenied("Only the campaign's umpire may do this.")
    return campaign, battle


def _battle_page(battle: Battle) -> str:
    return reverse("pages:battle", args=[battle.id])


def _names(units: Sequence[uuid.UUID]) -> dict[uuid.UUID, str]:
    return dict(Unit.objects.filter(id__in=units).values_list("id", "name"))


# --- The battle's lifecycle -----------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def battle_commit(request: HttpRequest, battle_id: uuid.UUID) -> HttpResponse:
    """Commit units of the sides' forces to a planned battle (SG2 P.19: each starts at the
    confidence its fatigue gives)."""
    campaign, battle = _umpire_battle(request, battle_id)
    sides = list(BattleSide.objects.filter(battle_id=battle.id).order_by("order"))
    committed = set(
        Participant.objects.filter(battle_id=battle.id).values_list("unit_id", flat=True)
    )
    error = ""
    if request.method == "POST":
        chosen = [uuid.UUID(v) for v in request.POST.getlist("unit_ids") if _is_uuid(v)]
        try:
            battle_services.battle_commit(
                campaign=campaign, battle=battle, unit_ids=chosen, actor=signed_in_user(request)
            )
        except CommandError as refusal:
            error = refusal.message
        else:
            messages.success(request, f"{len(chosen)} unit(s) committed to {battle.name}.")
            return redirect(_battle_page(battle))
    groups = []
    for side in sides:
        units = Unit.objects.filter(force_id__in=side.force_ids).order_by("force_id", "order")
        groups.append(
            {
                "side": side.side,
                "units": [
                    {"id": u.id, "name": u.name, "status": u.status, "committed": u.id in committed}
                    for u in units
                    if not UnitKind(u.kind).is_formation
                ],
            }
        )
    return render(
        request,
        "pages/battle_commit.html",
        {"campaign": campaign, "battle": battle, "groups": groups, "error": error},
        status=422 if error else 200,
    )


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


@login_required
@require_POST
def battle_step(request: HttpRequest, battle_id: uuid.UUID, step: str) -> HttpResponse:
    """Start the battle, or move it on to the next turn."""
    campaign, battle = _umpire_battle(request, battle_id)
    run = {"start": battle_services.battle_start, "turn": battle_services.turn_advance}.get(step)
    if run is None:
        raise Http404("No such step.")
    try:
        battle = run(campaign=campaign, battle=battle, actor=signed_in_user(request))
    except CommandError as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, f"{battle.name}: turn {battle.turn}.")
    return redirect(_battle_page(battle) + "#table")


# --- Battle actions -------------------------------------------------------------------------------


def _ruleset_actions(campaign: Campaign) -> list[str]:
    return sorted(name for ruleset, name in ACTIONS if ruleset == campaign.ruleset)


def _entities(battle: Battle) -> Entities:
    participants = list(
        Participant.objects.filter(battle_id=battle.id, status=Participant.Status.FIGHTING)
    )
    names = _names([p.unit_id for p in participants])
    units = [Choice(str(p.unit_id), names.get(p.unit_id, "?"), p.side) for p in participants]
    units.sort(key=lambda c: (c.group, c.label))
    on_table = [s.value for s in TrooperStatus if s.is_present]
    troopers = [
        Choice(str(t.id), t.name, names.get(t.unit_id, ""))
        for t in Trooper.objects.filter(unit_id__in=names, status__in=on_table).order_by(
            "unit_id", "order"
        )
    ]
    vehicles = [
        Choice(str(v.id), v.name, names.get(v.unit_id, ""))
        for v in Vehicle.objects.filter(unit_id__in=names).order_by("unit_id", "order")
    ]
    missions = []
    sides = []
    for side in BattleSide.objects.filter(battle_id=battle.id).order_by("order"):
        sides.append(Choice(side.side, side.side))
        for mission in support_state(side)["missions"]:
            label = f"{side.side}'s fire mission {mission['number']} ({mission['status']})"
            missions.append(Choice(mission["mission_id"], label, side.side))
    return Entities(units, troopers, vehicles, missions, sides)


@login_required
def battle_actions(request: HttpRequest, battle_id: uuid.UUID) -> HttpResponse:
    """Every battle action of the campaign's ruleset, each a link to its form."""
    campaign, battle = _umpire_battle(request, battle_id)
    listed = [
        {"name": name, "label": name.replace("_", " "), "about": _about(campaign, name)}
        for name in _ruleset_actions(campaign)
    ]
    return render(
        request,
        "pages/battle_actions.html",
        {"campaign": campaign, "battle": battle, "actions": listed},
    )


def _about(campaign: Campaign, name: str) -> str:
    doc = type(ACTIONS[(campaign.ruleset, name)]).__doc__ or ""
    return " ".join(doc.strip().split("\n\n")[0].split())


@login_required
@require_http_methods(["GET", "POST"])
def battle_action(request: HttpRequest, battle_id: uuid.UUID, action: str) -> HttpResponse:
    """One action's form. ``step``: ``prompt`` shows the dice the rules need so far (nothing is
    written), ``table`` records it with the faces entered, ``server`` has the server roll."""
    campaign, battle = _umpire_battle(request, battle_id)
    if (campaign.ruleset, action) not in ACTIONS:
        raise Http404("No such action in this campaign's ruleset.")
    performer = ACTIONS[(campaign.ruleset, action)]
    fields = form_fields(performer.Params, _entities(battle))
    context: dict[str, Any] = {
        "campaign": campaign,
        "battle": battle,
        "action": action,
        "label": action.replace("_", " "),
        "about": _about(campaign, action),
        "fields": fields,
        "dice": [],
        "error": "",
        "complete": False,
    }
    if request.method == "GET":
        return render(request, "pages/battle_action.html", context)
    params, unreadable = params_from(request.POST, fields)
    faces, dice_error = faces_from(request.POST)
    step = request.POST.get("step", "prompt")
    errors = dict(unreadable)
    if dice_error:
        errors["dice"] = dice_error
    if not errors:
        try:
            if step == "prompt":
                found = commands.prompt(
                    action_command(campaign.ruleset, action),
                    campaign_id=campaign.id,
                    params={**params, "battle_id": str(battle.id)},
                    actor_id=signed_in_user(request).pk,
                    dice=faces,
                )
                context["dice"] = _dice_fields(found.needs, _entities_names(battle))
                context["complete"] = found.complete
            else:
                outcome = action_perform(
                    campaign=campaign,
                    battle=battle,
                    name=action,
                    params=params,
                    dice=faces if step == "table" else None,
                    actor=signed_in_user(request),
                )
                return _done(request, battle, outcome)
        except CommandError as refusal:
            errors[_field_of(refusal, fields)] = refusal.message
    context["fields"] = with_values(fields, request.POST, errors)
    context["error"] = errors.get("", "")
    context["dice_error"] = errors.get("dice", "")
    if not context["dice"]:
        context["dice"] = [
            {"n": n, "die": "", "purpose": "", "for": "", "face": face}
            for n, face in enumerate(faces, start=1)
        ]
    failed = bool(errors)
    return render(request, "pages/battle_action.html", context, status=422 if failed else 200)


def _field_of(refusal: CommandError, fields: Sequence[FormField]) -> str:
    """The form field a refusal is about: the parameter its field path starts with; the dice;
    or the form as a whole."""
    path = (refusal.field or "").split(".")[0]
    if path in {f.name for f in fields}:
        return path
    if path == "dice":
        return "dice"
    return ""


def _entities_names(battle: Battle) -> dict[str, str]:
    entities = _entities(battle)
    return {
        c.value: c.label
        for c in [*entities.units, *entities.troopers, *entities.vehicles, *entities.missions]
    }


def _dice_fields(needs: Sequence[Any], names: dict[str, str]) -> list[dict[str, Any]]:
    return [
        {
            "n": n,
            "die": need.die.value,
            "purpose": need.purpose,
            "for": names.get(str(need.subject), "") if need.subject else "",
            "face": need.result,
            "assumed": need.assumed,
            "moot": need.moot,
        }
        for n, need in enumerate(needs, start=1)
    ]


def _done(request: HttpRequest, battle: Battle, outcome: commands.Outcome) -> HttpResponse:
    if outcome.job is not None:
        messages.success(request, "The server is rolling the dice: the job below tells when.")
        return redirect(reverse("pages:job", args=[outcome.job.pk]))
    sequences = [event.sequence for event in outcome.events]
    told = BattleLogEntry.objects.filter(battle_id=battle.id, sequence__in=sequences).order_by(
        "sequence", "key"
    )
    for line in told:
        messages.success(request, line.summary)
    return redirect(_battle_page(battle) + "#log")


# --- Planning a battle ----------------------------------------------------------------------------


def _side_from(data: Any, n: int) -> dict[str, Any]:
    """One side's mission card from the plan form (SG2 P.59 MISSION CARDS)."""
    side: dict[str, Any] = {
        "side": data.get(f"side{n}-side", "").strip(),
        "force_ids": [v for v in data.getlist(f"side{n}-forces") if _is_uuid(v)],
        "objectives": [
            o.strip() for o in data.get(f"side{n}-objectives", "").splitlines() if o.strip()
        ],
    }
    if data.get(f"side{n}-motivation"):
        side["mission_motivation"] = data[f"side{n}-motivation"]
    if data.get(f"side{n}-casevac") == "on":
        casevac: dict[str, Any] = {"on_call": True}
        for name, key in (("start_box", "casevac_box"), ("troop_capacity", "capacity")):
            raw = data.get(f"side{n}-{key}", "").strip()
            if raw.isdigit():
                casevac[name] = int(raw)
        side["casevac"] = casevac
    return side


@login_required
@require_http_methods(["GET", "POST"])
def battle_plan(request: HttpRequest, campaign_id: uuid.UUID) -> HttpResponse:
    """Plan a battle: its name, day and scenario, each side's mission card and forces, and in a
    linear or tree campaign the battles an attacker's and a defender's win lead to."""
    campaign, membership = member(request, campaign_id)
    if not is_umpire(membership):
        raise PermissionDenied("Only the campaign's umpire may do this.")
    forces = list(Force.objects.filter(campaign_id=campaign.id).order_by("side", "name"))
    battles = list(
        Battle.objects.filter(campaign_id=campaign.id).order_by("day", "planned_sequence")
    )
    errors: dict[str, str] = {}
    data = request.POST if request.method == "POST" else None
    if data is not None:
        plan: dict[str, Any] = {
            "name": data.get("name", "").strip(),
            "scenario": data.get("scenario", "").strip(),
            "sides": [_side_from(data, 0), _side_from(data, 1)],
        }
        day = data.get("day", "").strip()
        if day.isdigit():
            plan["day"] = int(day)
        else:
            errors["day"] = "The campaign day the battle is fought on: a whole number."
        for key in ("attacker", "next_on_attacker_win", "next_on_defender_win"):
            if data.get(key):
                plan[key] = data[key]
        if not errors:
            try:
                planned = battle_services.battle_plan(
                    campaign=campaign, actor=signed_in_user(request), **plan
                )
            except CommandError as refusal:
                errors[(refusal.field or "").split(".")[0] or "form"] = refusal.message
                errors["form"] = refusal.message
            else:
                messages.success(request, f"{planned.name} planned for day {planned.day}.")
                return redirect(_battle_page(planned))
    sides = [
        {
            "n": n,
            "side": (data.get(f"side{n}-side") if data else "") or "",
            "forces": set(data.getlist(f"side{n}-forces")) if data else set(),
            "motivation": (data.get(f"side{n}-motivation") if data else "") or "",
            "objectives": (data.get(f"side{n}-objectives") if data else "") or "",
            "casevac": bool(data and data.get(f"side{n}-casevac") == "on"),
        }
        for n in (0, 1)
    ]
    return render(
        request,
        "pages/battle_plan.html",
        {
            "campaign": campaign,
            "forces": forces,
            "battles": battles,
            "sides": sides,
            "values": data or {"day": campaign.day},
            "errors": errors,
        },
        status=422 if errors else 200,
    )
