"""Reading pages for forces, units, troopers and battles.

Every page reads through the same selectors as the API (``rosters.selectors``,
``battles.review``, ``battles.selectors``) with the same permissions: any member of the campaign
reads, each sees what the visibility function (``campaigns.visibility``) allows them, and anyone
else is told the campaign does not exist. Another player's force is shown in outline with a 403;
its units and troopers are not found (404), as in the API. Force, unit and trooper pages can show
the roster as it stood at any point of the log (``?as_of=`` or ``?as_of_battle=&side=``), folded by
``resolve_as_of`` and ``roster_view`` exactly as the API folds it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.decorators import login_required
from django.db.models import Max
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.shortcuts import render

from battles.models import Battle, BattleLogEntry
from battles.projections import dice_text
from battles.review import battle_casualties, unit_progression
from battles.selectors import battle_detail, battle_log, battles_of
from campaigns.models import Campaign, Membership
from campaigns.visibility import UNKNOWN_FORCE, Judge, Reader, Sight, reader_of
from eventlog.errors import CommandError, NotFound
from pages.access import is_umpire, member
from pages.charts import Point, line_chart
from pages.report_views import reports_panel
from rosters.selectors import (
    CurrentRoster,
    RosterView,
    campaign_of,
    force_detail,
    force_outlines,
    resolve_as_of,
    roster_view,
    trooper_detail,
    unit_detail,
)
from rules.fad.scales import Quality as FadQuality
from rules.rulesets import Ruleset
from rules.sg2.scales import Quality as Sg2Quality

# How often an open battle page asks whether something has happened (ADR 24).
LIVE_EVERY_SECONDS = 10

Row = dict[str, Any]


# --- The as-of selector --------------------------------------------------------------------------


@dataclass
class AsOf:
    """Which point of the log a page shows, and the choices its selector offers."""

    upto: int | None = None
    label: str = "now"
    selected: str = ""  # the chosen option of the select: "" (now) or "<battle id>:<side>"
    as_of: str = ""  # the event number typed in, echoed back into the form
    error: str = ""
    choices: list[tuple[str, str]] = field(default_factory=list)

    @property
    def query(self) -> str:
        """The query string that keeps this point on links to other roster pages."""
        if self.upto is None:
            return ""
        return f"?as_of={self.upto}"


NOT_BEGUN = (Battle.Status.PLANNED, Battle.Status.COMMITTED)


def _as_of(request: HttpRequest, campaign_id: uuid.UUID, battles: Sequence[Row]) -> AsOf:
    """Read the as-of parameters the way the API does.

    The select cannot send two fields from one choice without JavaScript, so its options carry
    ``<battle id>:<side>`` in ``as_of_battle``; a plain battle id with a separate ``side`` (as
    the API takes them, and as links from other pages send them) works too. "Before" a battle
    is just before it began, "after" it after its end and after-action (``resolve_as_of``); the
    select offers only battles that have begun.
    """
    names = {str(b["id"]): b["name"] for b in battles}
    choices = [("", "now")]
    for battle in battles:
        if battle["status"] in NOT_BEGUN:
            continue  # planned ahead (linked battles are): nothing before or after it yet
        choices.append((f"{battle['id']}:before", f"before {battle['name']}"))
        choices.append((f"{battle['id']}:after", f"after {battle['name']}"))
    as_of = request.GET.get("as_of", "").strip()
    as_of_battle = request.GET.get("as_of_battle", "").strip()
    side = request.GET.get("side", "").strip()
    if ":" in as_of_battle:
        as_of_battle, side = as_of_battle.split(":", 1)
    state = AsOf(as_of=as_of, choices=choices)
    try:
        upto = resolve_as_of(campaign_id, as_of=as_of, as_of_battle=as_of_battle, side=side)
    except CommandError as exc:  # NotFound among them: a battle of another campaign
        state.error = exc.message
        return state
    state.upto = upto
    if upto is None:
        return state
    if as_of_battle:
        state.selected = f"{as_of_battle}:{side}"
        state.label = f"{side} {names.get(as_of_battle, 'the battle')} (after event #{upto})"
    else:
        state.label = f"after event #{upto}"
    return state


# --- Formatting ----------------------------------------------------------------------------------


def dice_label(dice: Sequence[Row]) -> str:
    """``d6 4, d8 7 (table)``: the faces in the order the rules used them, and who rolled."""
    if not dice:
        return ""
    faces = ", ".join(f"d{d['die']} {d['result']}" for d in dice)
    sources = " and ".join(sorted({d["source"] for d in dice}))
    return f"{faces} ({sources})"


def dice_purposes(dice: Sequence[Row]) -> str:
    return "; ".join(f"d{d['die']} {d['result']}: {d.get('purpose', '')}" for d in dice)


def _told(entry: Row, battle_names: dict[str, str]) -> Row:
    """A history, service record or log line with its dice set apart from its words.

    Battle log lines end with their dice in brackets already; they are shown once, beside the
    line, in the same form everywhere.
    """
    dice = entry.get("dice") or []
    summary = entry["summary"]
    suffix = dice_text(dice)
    if suffix and summary.endswith(suffix):
        summary = summary[: -len(suffix)]
    battle_id = entry.get("battle_id")
    return {
        **entry,
        "summary": summary,
        "dice_label": dice_label(dice),
        "dice_purposes": dice_purposes(dice),
        "battle_name": battle_names.get(str(battle_id)) if battle_id else None,
    }


def _words(value: str | None) -> str:
    return (value or "").replace("_", " ")


# --- Access --------------------------------------------------------------------------------------


def _entity(request: HttpRequest, kind: str, entity_id: uuid.UUID) -> tuple[Campaign, Membership]:
    """The campaign of a force, unit or trooper, for a member of it; 404 for anyone else."""
    try:
        campaign_id = campaign_of(kind, entity_id)
    except NotFound:
        raise Http404(f"No such {kind}.") from None
    return member(request, campaign_id)


def _common(
    request: HttpRequest, kind: str, entity_id: uuid.UUID
) -> tuple[Reader, RosterView, Row]:
    campaign, membership = _entity(request, kind, entity_id)
    reader = reader_of(membership, campaign)
    battles = battles_of(campaign.id, Judge(reader))
    asof = _as_of(request, campaign.id, battles)
    context: Row = {
        "campaign": campaign,
        "membership": membership,
        "umpire": is_umpire(membership),
        "asof": asof,
        "battles": battles,
        "battle_names": {str(b["id"]): b["name"] for b in battles},
    }
    return reader, roster_view(campaign.id, asof.upto), context


def _status(context: Row) -> int:
    return 400 if context["asof"].error else 200


def _elsewhere(
    request: HttpRequest,
    template: str,
    context: Row,
    view: RosterView,
    force_id: Any,
    kind: str,
) -> HttpResponse:
    """What a player sees of another player's force: its outline, with a 403."""
    outline = next((o for o in force_outlines(view) if str(o["id"]) == str(force_id)), None)
    return render(
        request,
        template,
        {**context, "denied": True, "outline": outline, "kind": kind},
        status=403,
    )


def _require_whole(reader: Reader, now: Row | None, kind: str) -> None:
    """A unit or trooper of a force the reader sees in outline is not found, whatever point of
    the log is asked about: nothing shown to the reader says it exists."""
    if not reader.sees_force(now["force_id"] if now else UNKNOWN_FORCE):
        raise Http404(f"No such {kind}.")


def _missing(request: HttpRequest, template: str, context: Row, kind: str) -> HttpResponse:
    """The entity did not exist yet (or any more) at the chosen point."""
    return render(request, template, {**context, "missing": True, "kind": kind}, status=404)


# --- Force ---------------------------------------------------------------------------------------


def _walk(units: Sequence[Row], depth: int = 0) -> Iterator[Row]:
    """The unit tree in reading order, each node with its depth (templates cannot recurse)."""
    for node in units:
        yield {"unit": node, "depth": depth}
        yield from _walk(node["units"], depth + 1)


def _card(unit: Row) -> Row:
    return {
        **unit,
        "kind_label": _words(unit["kind"]),
        "status_label": _words(unit["status"]),
        "troopers": [
            {**t, "role_label": _words(t["role"]), "status_label": _words(t["status"])}
            for t in unit["troopers"]
        ],
    }


@login_required
def force_page(request: HttpRequest, force_id: uuid.UUID) -> HttpResponse:
    reader, view, context = _common(request, "force", force_id)
    template = "pages/force.html"
    force = view.force(force_id)
    if force is None:
        return _missing(request, template, context, "force")
    context["force"] = force
    if not reader.sees_force(force_id):
        return _elsewhere(request, template, context, view, force_id, "force")
    detail = force_detail(view, force)
    rows = [{**row, "unit": _card(row["unit"])} for row in _walk(detail["units"])]
    toe = sum(r["unit"]["toe_strength"] for r in rows if not r["unit"]["is_formation"])
    context.update(detail=detail, rows=rows, toe=toe)
    return render(request, template, context, status=_status(context))


# --- Unit ----------------------------------------------------------------------------------------


def _point_label(row: Row) -> str:
    return row["battle_name"] or f"day {row['day']}"


def _collapse(rows: Sequence[Row]) -> list[Row]:
    """One point per run of the same kind of event on the same day and battle: a roster import
    enlists its men one event at a time, which says nothing on a chart."""
    out: list[Row] = []
    for row in rows:
        run = (row["day"], row["battle_id"], row["event_type"])
        if out and (out[-1]["day"], out[-1]["battle_id"], out[-1]["event_type"]) == run:
            out[-1] = row
        else:
            out.append(row)
    return out


def _quality_scale(ruleset: str) -> dict[str, int]:
    """The quality levels of a ruleset, worst to best, by name."""
    scale = FadQuality if ruleset == Ruleset.FAD.value else Sg2Quality
    return {q.name: q.value for q in scale}


def _charts(unit: Row, progression: Row, upto: int | None, ruleset: str) -> tuple[Row, Row]:
    def upto_point(rows: list[Row]) -> list[Row]:
        return [r for r in rows if upto is None or r["sequence"] <= upto]

    quality = upto_point(progression["quality"])
    strength = _collapse(upto_point(progression["strength"]))
    # The level is what a unit fights at: it is drawn as steps, with its points above it, so a
    # fall from Veteran to Regular with the same points shows as the fall it is.
    scale = _quality_scale(ruleset)
    levels = [scale.get(str(r["quality"]).upper(), 0) for r in quality]
    quality_points = [
        Point(
            _point_label(r),
            level,
            f"{_words(r['quality'])}, {r['points']} points"
            + (f" (+{r['points_gained']})" if r["points_gained"] else ""),
        )
        for r, level in zip(quality, levels, strict=True)
    ]
    # A unit's strength before its men were enlisted is no strength it ever had.
    charted = list(strength)
    while len(charted) > 1 and charted[0]["strength"] == 0:
        charted = charted[1:]
    # One point per battle or day on the chart: where it ended that battle or day (the table
    # below keeps every step).
    charted = [r for i, r in enumerate(charted) if i + 1 == len(charted)
               or _point_label(charted[i + 1]) != _point_label(r)]  # fmt: skip
    strength_points = [
        Point(_point_label(r), r["strength"], f"{r['strength']} present") for r in charted
    ]
    shown = sorted(scale.items(), key=lambda item: item[1])
    quality_chart = line_chart(
        title=f"Quality progression: {unit['name']}",
        x_label="Battle or day",
        y_label="Quality (points above)",
        points=quality_points,
        y_min=min(scale.values()),
        y_max=max(scale.values()),
        y_ticks=[(value, name.title()) for name, value in shown],
        steps=True,
        marks=[f"{r['points']} pts" for r in quality],
    )
    strength_chart = line_chart(
        title=f"Strength over time: {unit['name']}",
        x_label="Battle or day",
        y_label="Troopers present",
        points=strength_points,
        y_max=unit["toe_strength"] or None,
        steps=True,
    )
    return (
        {"svg": quality_chart, "rows": quality},
        {"svg": strength_chart, "rows": strength},
    )


@login_required
def unit_page(request: HttpRequest, unit_id: uuid.UUID) -> HttpResponse:
    reader, view, context = _common(request, "unit", unit_id)
    judge = Judge(reader, at=context["asof"].upto)
    _require_whole(reader, CurrentRoster(context["campaign"].id).unit(unit_id), "unit")
    template = "pages/unit.html"
    unit = view.unit(unit_id)
    if unit is None:
        return _missing(request, template, context, "unit")
    context["unit"] = unit
    detail = _card(unit_detail(view, unit))
    names = context["battle_names"]
    siblings = view.units(unit["force_id"])
    by_id = {u["id"]: u for u in siblings}
    quality, strength = _charts(
        unit,
        unit_progression(context["campaign"].id, unit_id, judge),
        context["asof"].upto,
        context["campaign"].ruleset,
    )
    context.update(
        unit=detail,
        force=view.force(unit["force_id"]),
        parent=by_id.get(unit["parent_id"]) if unit["parent_id"] else None,
        children=[u for u in siblings if u["parent_id"] == unit["id"]],
        history=[_told(entry, names) for entry in judge.shown(view.unit_history(unit_id))],
        quality=quality,
        strength=strength,
    )
    return render(request, template, context, status=_status(context))


# --- Trooper -------------------------------------------------------------------------------------


@login_required
def trooper_page(request: HttpRequest, trooper_id: uuid.UUID) -> HttpResponse:
    reader, view, context = _common(request, "trooper", trooper_id)
    judge = Judge(reader, at=context["asof"].upto)
    _require_whole(reader, CurrentRoster(context["campaign"].id).trooper(trooper_id), "trooper")
    template = "pages/trooper.html"
    trooper = view.trooper(trooper_id)
    if trooper is None:
        return _missing(request, template, context, "trooper")
    context["trooper"] = trooper
    detail = trooper_detail(view, trooper)
    names = context["battle_names"]
    record = [_told(entry, names) for entry in judge.shown(detail["service_record"])]
    fought = {str(r["battle_id"]) for r in record if r["battle_id"]}
    context.update(
        trooper={
            **detail,
            "role_label": _words(detail["role"]),
            "status_label": _words(detail["status"]),
        },
        force=view.force(trooper["force_id"]),
        record=record,
        # In campaign order, as battles_of lists them.
        trooper_battles=[b for b in context["battles"] if str(b["id"]) in fought],
    )
    return render(request, template, context, status=_status(context))


# --- Battle --------------------------------------------------------------------------------------


def _casevac(state: Row) -> str:
    status = state.get("status", "none")
    if status == "none":
        return "no casevac in this scenario"
    if status == "on_call":
        return f"on call, waiting in box {state.get('box')}"
    if status == "called":
        return f"called in turn {state.get('called_turn')}, inbound in box {state.get('box')}"
    if status == "arrived":
        return f"in the battle area since turn {state.get('arrived_turn')}"
    if status == "departed":
        return f"left the table in turn {state.get('departed_turn')}"
    return _words(status)


def _aboard_names(campaign_id: uuid.UUID, sides: list[dict[str, Any]]) -> dict[str, str]:
    """The names of the casualties aboard each side's casevac, by trooper id."""
    aboard_ids = {
        entry["trooper_id"] for side in sides for entry in (side["casevac"] or {}).get("aboard", [])
    }
    if not aboard_ids:
        return {}
    return {
        t["id"]: t["name"] for t in CurrentRoster(campaign_id).troopers(id__in=sorted(aboard_ids))
    }


def _side_card(
    side: dict[str, Any],
    participants: list[dict[str, Any]],
    aboard_names: dict[str, str],
) -> dict[str, Any]:
    """One side of the battle page: its mission, its casevac (who is aboard, or how many for a
    reader who sees the side in outline) and its units (how many, likewise)."""
    casevac = side["casevac"] or {}
    mission = side["mission"] or {}
    aboard = casevac.get("aboard", [])
    ours = [p for p in participants if p["side"] == side["side"]]
    return {
        **side,
        "mission_hidden": bool(mission.get("hidden")),
        "motivation": _words(mission.get("mission_motivation")),
        "objectives": mission.get("objectives", []),
        "victory_conditions": mission.get("victory_conditions", ""),
        "casevac_text": _casevac(casevac),
        "aboard": [aboard_names.get(e["trooper_id"], "a trooper") for e in aboard],
        "aboard_count": casevac.get("aboard_count", len(aboard)),
        "units": [
            {**p, "confidence_label": _words(p["confidence"]), "status_label": _words(p["status"])}
            for p in ours
            if p.get("sight") != Sight.OUTLINE
        ],
        "units_in_outline": sum(1 for p in ours if p.get("sight") == Sight.OUTLINE),
    }


@login_required
def battle_page(request: HttpRequest, battle_id: uuid.UUID) -> HttpResponse:
    # Found as the API finds it: the battle row, then membership of its campaign.
    battle = Battle.objects.filter(pk=battle_id).first()
    if battle is None:
        raise Http404("No such battle.")
    campaign, membership = member(request, battle.campaign_id)
    reader = reader_of(membership, campaign)
    judge = Judge(reader)
    if not judge.sees_battle(battle.id):
        raise Http404("No such battle.")  # hidden whole from this reader
    # The page's version: the last event its log tells. The page's script asks with the
    # version it shows and is answered 304 until something happens (ADR 24).
    version = str(
        BattleLogEntry.objects.filter(battle_id=battle.id).aggregate(last=Max("sequence"))["last"]
        or 0
    )
    if request.GET.get("version") == version:
        return HttpResponseNotModified()
    detail = battle_detail(battle, judge)
    participants = detail["participants"]
    aboard_names = _aboard_names(campaign.id, detail["sides"])
    sides = [_side_card(side, participants, aboard_names) for side in detail["sides"]]
    names = {str(battle.id): battle.name}
    casualties = battle_casualties(battle, reader)
    unit_names = {p["unit_id"]: p["unit_name"] for p in participants if "unit_id" in p}
    for side in casualties["sides"]:
        for trooper in side["troopers"]:
            trooper["unit_name"] = unit_names.get(trooper["unit_id"], "")
            trooper["status_label"] = _words(trooper["status"])
    return render(
        request,
        "pages/battle.html",
        {
            "campaign": campaign,
            "membership": membership,
            "umpire": is_umpire(membership),
            "battle": detail,
            "status_label": battle.get_status_display(),
            "sides": sides,
            "log": [_told(entry, names) for entry in battle_log(battle.id, judge)],
            "casualties": casualties["sides"],
            "live_version": version,
            "live_every": LIVE_EVERY_SECONDS,
            "reports": reports_panel(battle, membership),
        },
    )
