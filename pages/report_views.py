"""Battle reports on the pages: a side's player files their account of a battle, and the umpire
reconciles the two reports point by point beside the log (``battles.reports``)."""

from __future__ import annotations

import re
import uuid
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from battles.models import Battle, Participant
from battles.reports.commands import (
    battle_report_file,
    report_point_decide,
    sides_of_member,
)
from battles.reports.reconciliation import Point, Reconciliation, logged_status, reconciliation
from campaigns.models import Campaign, Membership
from campaigns.visibility import Judge, reader_of
from eventlog.errors import CommandError
from pages.access import is_umpire, member, signed_in_user
from rosters.models import Unit

STATUS_WORDS = {
    "fit": "fit",
    "wounded": "wounded",
    "killed": "killed",
    "met": "met",
    "not_met": "not met",
    "unrecorded": "not recorded",
}
_DECISION_WORDS = {"accepted": "accepted", "corrected": "corrected", "rejected": "rejected"}
_INDEXED_FIELD = re.compile(r"^(troopers|objectives)\.(\d+)\.")


def _battle_for(request: HttpRequest, battle_id: uuid.UUID) -> tuple[Campaign, Battle, Membership]:
    battle = Battle.objects.filter(pk=battle_id).first()
    if battle is None:
        raise Http404("No such battle.")
    campaign, membership = member(request, battle.campaign_id)
    if not Judge(reader_of(membership, campaign)).sees_battle(battle.id):
        raise Http404("No such battle.")
    return campaign, battle, membership


def words(value: str) -> str:
    return STATUS_WORDS.get(value, value.replace("_", " "))


def _groups(found: Reconciliation, membership: Membership, campaign: Campaign, side: str):
    """The troopers on the table the member may name, by side and unit, in the battle's order;
    and whether each is the reporting side's own."""
    reader = reader_of(membership, campaign)
    side_of = dict(
        Participant.objects.filter(battle_id=found.battle.id).values_list("unit_id", "side")
    )
    units = {
        u.id: u for u in Unit.objects.filter(id__in=side_of.keys()).order_by("force_id", "order")
    }
    by_unit: dict[uuid.UUID, list[Any]] = {}
    for trooper in sorted(found.troopers.values(), key=lambda t: t.order):
        by_unit.setdefault(trooper.unit_id, []).append(trooper)
    groups = []
    for side_row in found.sides:
        for unit_id, unit in units.items():
            if side_of.get(unit_id) != side_row["side"] or not reader.sees_force(unit.force_id):
                continue
            groups.append(
                {
                    "side": side_row["side"],
                    "own": side_row["side"] == side,
                    "unit": unit.name,
                    "troopers": by_unit.get(unit_id, []),
                }
            )
    return groups


def _objectives(found: Reconciliation, judge: Judge) -> list[tuple[str, str]]:
    """Each objective of the sides' missions the reader may read: (side, objective)."""
    return [
        (side["side"], objective)
        for side in found.sides
        if judge.mission_secret(found.battle.id, side["side"]) is None
        for objective in side["mission"].get("objectives", [])
    ]


@login_required
@require_http_methods(["GET", "POST"])
def battle_report(request: HttpRequest, battle_id: uuid.UUID) -> HttpResponse:
    """File (or replace) a side's report of a battle that has ended: who was hurt, the
    objectives met, notes; and read the umpire's decision on each point of it."""
    campaign, battle, membership = _battle_for(request, battle_id)
    sides = sides_of_member(membership, battle)
    if not sides:
        raise PermissionDenied("Only the players of the battle's sides file reports.")
    side = request.POST.get("side") or request.GET.get("side") or sides[0]
    if side not in sides:
        raise PermissionDenied("You may not file that side's report.")
    judge = Judge(reader_of(membership, campaign))
    found = reconciliation(battle)
    report = found.reports.get(side)
    claimed = {str(t["trooper_id"]): t["status"] for t in report.troopers} if report else {}
    objective_claims = (
        {(o["side"], o["objective"]): "met" if o["met"] else "not_met" for o in report.objectives}
        if report
        else {}
    )
    groups = _groups(found, membership, campaign, side)
    objectives = _objectives(found, judge)
    errors: dict[str, str] = {}
    form_error = ""
    notes = report.notes if report else ""
    if request.method == "POST":
        troopers, trooper_inputs = [], []
        for group in groups:
            for trooper in group["troopers"]:
                name = f"trooper-{trooper.id}"
                value = request.POST.get(name, "")
                claimed[str(trooper.id)] = value
                if value in ("wounded", "killed") or (value == "fit" and not group["own"]):
                    troopers.append({"trooper_id": str(trooper.id), "status": value})
                    trooper_inputs.append(name)
        said, objective_inputs = [], []
        for index, (mission_side, objective) in enumerate(objectives):
            name = f"objective-{index}"
            value = request.POST.get(name, "")
            objective_claims[(mission_side, objective)] = value
            if value in ("met", "not_met"):
                said.append({"side": mission_side, "objective": objective, "met": value == "met"})
                objective_inputs.append(name)
        notes = request.POST.get("notes", "")
        try:
            battle_report_file(
                battle=battle,
                side=side,
                troopers=troopers,
                objectives=said,
                notes=notes,
                actor=signed_in_user(request),
            )
        except CommandError as refusal:
            where = _INDEXED_FIELD.match(refusal.field or "")
            inputs = {"troopers": trooper_inputs, "objectives": objective_inputs}
            if where and int(where[2]) < len(inputs[where[1]]):
                errors[inputs[where[1]][int(where[2])]] = refusal.message
            else:
                form_error = refusal.message
        else:
            messages.success(request, f"{side}'s report of {battle.name} is filed.")
            return redirect(reverse("pages:battle", args=[battle.id]) + "#reports")
    rows = [
        {
            **group,
            "troopers": [
                {
                    "id": t.id,
                    "name": t.name,
                    "input": f"trooper-{t.id}",
                    "value": claimed.get(str(t.id), _as_logged(t) if group["own"] else ""),
                    "error": errors.get(f"trooper-{t.id}", ""),
                }
                for t in group["troopers"]
            ],
        }
        for group in groups
    ]
    return render(
        request,
        "pages/battle_report.html",
        {
            "campaign": campaign,
            "battle": battle,
            "side": side,
            "sides": sides,
            "umpire": is_umpire(membership),
            "report": report,
            "decided": bool(report and report.decisions),
            "decisions": _decisions(report, found) if report else [],
            "groups": rows,
            "objectives": [
                {
                    "side": mission_side,
                    "objective": objective,
                    "input": f"objective-{index}",
                    "value": objective_claims.get((mission_side, objective), ""),
                    "error": errors.get(f"objective-{index}", ""),
                }
                for index, (mission_side, objective) in enumerate(objectives)
            ],
            "notes": notes,
            "form_error": form_error,
            "open": battle.status == Battle.Status.ENDED,
        },
        status=422 if (errors or form_error) else 200,
    )


def _as_logged(trooper: Any) -> str:
    """What a new report says of one of the side's own men at first: what the log holds, so
    the player changes only what they disagree with."""
    logged = logged_status(trooper)
    return logged if logged in ("fit", "wounded", "killed") else "fit"


def _decisions(report: Any, found: Reconciliation) -> list[dict[str, Any]]:
    """The umpire's decisions on a report, in words."""
    out = []
    for key, decision in sorted(report.decisions.items(), key=lambda kv: kv[1]["sequence"]):
        point = found.point(key)
        out.append(
            {
                "what": point.label if point else key,
                "claimed": words(decision["claimed"]),
                "value": words(decision["value"]),
                "decision": _DECISION_WORDS[decision["decision"]],
                "upheld": decision["upheld"],
                "reason": decision["reason"],
            }
        )
    return out


def _point_card(point: Point, found: Reconciliation, error: str = "") -> dict[str, Any]:
    claims = {c.side: c for c in point.claims}
    return {
        "key": point.key,
        "anchor": f"point-{found.points.index(point)}",
        "kind": point.kind,
        "label": point.label,
        "side": point.side,
        "unit_name": point.unit_name,
        "trooper_id": point.trooper_id,
        "logged": words(point.logged),
        "state": point.state,
        "claims": [
            {
                "side": side["side"],
                "value": words(claims[side["side"]].value) if side["side"] in claims else "—",
                "implied": claims[side["side"]].implied if side["side"] in claims else False,
                "report_id": claims[side["side"]].report_id if side["side"] in claims else "",
                "differs": side["side"] in claims and claims[side["side"]].value != point.logged,
            }
            for side in found.sides
        ],
        "values": (
            [("fit", "fit"), ("wounded", "wounded"), ("killed", "killed")]
            if point.kind == "trooper"
            else [("met", "met"), ("not_met", "not met")]
        ),
        "decision": (
            {
                "value": words(point.decision["value"]),
                "decision": point.decision["decision"],
                "reason": point.decision["reason"],
            }
            if point.decision
            else None
        ),
        "decidable": bool(point.claims) and point.decision is None,
        "error": error,
    }


@login_required
@require_http_methods(["GET", "POST"])
def battle_reconcile(request: HttpRequest, battle_id: uuid.UUID) -> HttpResponse:
    """The umpire's reconciliation: both reports beside the log, point by point, every
    disagreement marked; accept a report's claim, correct it, or reject the reports."""
    campaign, battle, membership = _battle_for(request, battle_id)
    if not is_umpire(membership):
        raise PermissionDenied("Only the campaign's umpire reconciles the reports.")
    error_at, error = "", ""
    if request.method == "POST":
        point = request.POST.get("point", "")
        choice = request.POST.get("choice", "")
        decision, _, report_id = choice.partition(":")
        try:
            report_point_decide(
                battle=battle,
                point=point,
                decision=decision or "accept",
                report_id=uuid.UUID(report_id) if report_id else None,
                value=request.POST.get("value") or None,
                reason=request.POST.get("reason", ""),
                actor=signed_in_user(request),
            )
        except (CommandError, ValueError) as refusal:
            error_at = point
            error = refusal.message if isinstance(refusal, CommandError) else "Choose a decision."
        else:
            found = reconciliation(battle)
            decided = found.point(point)
            anchor = f"#point-{found.points.index(decided)}" if decided else ""
            messages.success(request, "Decided.")
            return redirect(reverse("pages:battle_reconcile", args=[battle.id]) + anchor)
    found = reconciliation(battle)
    cards = [
        _point_card(p, found, error if p.key == error_at else "")
        for p in found.points
        if p.claims or p.logged not in ("fit", "unrecorded")
    ]
    return render(
        request,
        "pages/battle_reconcile.html",
        {
            "campaign": campaign,
            "battle": battle,
            "reports": [
                {"side": s["side"], "report": found.reports.get(s["side"])} for s in found.sides
            ],
            "points": cards,
            "undecided": sum(1 for c in cards if c["state"] in ("disagreement", "to_decide")),
            "error": error if error and not any(c["error"] for c in cards) else "",
            "open": battle.status == Battle.Status.ENDED,
        },
        status=422 if error else 200,
    )


def reports_panel(battle: Battle, membership: Membership) -> dict[str, Any] | None:
    """What the battle page says of the reports: the member's sides' reports (filed or not,
    decisions on them), and for an umpire how many points wait for a decision."""
    if battle.status not in (Battle.Status.ENDED, Battle.Status.RESOLVED):
        return None
    sides = sides_of_member(membership, battle)
    if not sides:
        return None
    found = reconciliation(battle)
    return {
        "open": battle.status == Battle.Status.ENDED,
        "sides": [
            {
                "side": side,
                "filed": side in found.reports,
                "decided": len(found.reports[side].decisions) if side in found.reports else 0,
            }
            for side in sides
        ],
        "umpire": is_umpire(membership),
        "undecided": sum(1 for p in found.points if p.state in ("disagreement", "to_decide")),
    }
