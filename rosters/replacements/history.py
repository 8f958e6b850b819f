"""Replacements in plain words: the histories of platoons and squads, and the quality drops and
arrivals on the rosters projection's rows."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from eventlog.projections import Projection, Read, Rows, register
from eventlog.store import StoredEvent
from rosters.models import Trooper, Unit
from rosters.projections import service_record, unit_history
from rosters.replacements.events import ARRIVED, ASSIGNED, ROLLED


def _label(value: str | None) -> str:
    return (value or "").replace("_", " ").capitalize()


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _names(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _counted_by_earlier_check(check: Mapping[str, Any], count: int) -> str:
    """Men counted by the check the squad took earlier since its last battle (P.60)."""
    before, after = _label(check["quality_before"]), _label(check["quality_after"])
    counts = f"the quality check already made counts {'him' if count == 1 else 'them'}"
    if check["dropped"]:
        outcome = f": {before} to {after}"
    elif check.get("dropped_earlier"):
        outcome = f", already dropped: stays {before}"
    elif check["roll"] is not None and check["roll"] <= check["counted"]:
        outcome = f": stays {before}, {before} units do not drop further"
    else:
        outcome = f": stays {before}"
    if check["roll"] is None:
        return f"{counts}, with nothing rolled{outcome}"
    return (
        f"{counts}: d{check['die']} {check['roll']} with "
        f"{_plural(check['counted'], 'replacement')}{outcome}"
    )


def check_text(check: Mapping[str, Any], count: int) -> str:
    """A quality check in plain words: "quality check d6 2 with 2 replacements: Veteran to
    Regular"."""
    before, after = _label(check["quality_before"]), _label(check["quality_after"])
    members = check["existing_members"] + check["returned_from_injury"]
    if check["quality_before"] is None:
        return "no quality to check"
    if (check.get("counted") or count) > count:
        return _counted_by_earlier_check(check, count)
    # A die the book rolls though it cannot matter (P.60): recorded, and said so.
    moot = check["dice"][0] if check["dice"] and check["dice"][0].get("moot") else None
    if check["dice"] and moot is None:
        face = check["dice"][0]["result"]
        outcome = f"{before} to {after}" if check["dropped"] else f"stays {before}"
        return (
            f"quality check d{check['die']} {face} with {_plural(count, 'replacement')}: {outcome}"
        )
    if check["die"] is not None and check["dropped"]:
        how = (
            f"whatever the die shows (d{check['die']} {moot['result']})"
            if moot
            else "without a roll"
        )
        return (
            f"{_plural(count, 'replacement')} against a d{check['die']} drop it {how}: "
            f"{before} to {after}"
        )
    if members == 0:
        return f"no one left to absorb them, so the squad is re-formed: {before} to {after}"
    if moot is not None:
        return (
            f"quality check d{check['die']} {moot['result']} cannot matter: {before} units do "
            "not drop further"
        )
    return f"no quality check: {before} units do not drop further"


def _the_platoon(event: StoredEvent) -> Iterator[Read]:
    yield Unit, event.payload["platoon_id"]


def _the_platoon_and_its_squads(event: StoredEvent) -> Iterator[Read]:
    yield from _the_platoon(event)
    yield from ((Unit, a["unit_id"]) for a in event.payload["assignments"])


def _the_squad_and_its_new_men(event: StoredEvent) -> Iterator[Read]:
    yield from _the_platoon(event)
    yield Unit, event.payload["unit_id"]
    yield from ((Trooper, t) for t in event.payload["trooper_ids"])


@register
class ReplacementsProjection(Projection):
    """Replacements in the histories of platoons and squads; quality drops and arrivals on the
    rosters projection's rows."""

    name = "rosters.replacements"
    version = 2

    @Projection.handles(ROLLED, reads=_the_platoon)
    def rolled(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        if rows.get(Unit, p["platoon_id"]) is None:
            return
        summary = (
            f"Day {p['day']}: replacements rolled, d{p['die']} {p['roll']}: "
            f"{_plural(p['available'], 'replacement')} available."
        )
        if p["lapsed"]:
            summary += (
                f" {_plural(p['lapsed'], 'replacement')} of the last roll, never assigned, lapsed."
            )
        unit_history(
            rows,
            event,
            p["platoon_id"],
            summary,
            {"replacements_available": p["available"]},
            dice=p["dice"],
        )

    @Projection.handles(ASSIGNED, reads=_the_platoon_and_its_squads)
    def assigned(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        platoon = rows.get(Unit, p["platoon_id"])
        if platoon is None:
            return
        when = f"They arrive on day {p['arrives_on_day']}."
        shares = []
        for a in p["assignments"]:
            unit = rows.get(Unit, a["unit_id"])
            if unit is None:
                continue
            shares.append(f"{unit['name']} {a['count']}")
            check = a["check"]
            changes: dict[str, Any] = {"replacements_assigned": a["count"]}
            if check["quality_after"] != check["quality_before"]:
                rows.update(Unit, a["unit_id"], quality=check["quality_after"])
                changes["quality"] = [check["quality_before"], check["quality_after"]]
            members = _plural(check["existing_members"] + check["returned_from_injury"], "member")
            if check["returned_from_injury"]:
                members += f", {check['returned_from_injury']} back from injury"
            points = ""
            before, after = check.get("points_before"), check.get("points_after")
            if before is not None and after is not None and before != after:
                # P.60: a rise undone by the replacements leaves the points used up.
                rows.update(Unit, a["unit_id"], experience_points=after)
                changes["experience_points"] = [before, after]
                points = (
                    " The rise it just made is undone: improvement points used up "
                    f"({before} to {after})."
                )
            unit_history(
                rows,
                event,
                a["unit_id"],
                f"Day {p['day']}: {_plural(a['count'], 'replacement')} assigned: "
                f"{check_text(check, a['count'])} ({members}).{points} {when}",
                changes,
                dice=check["dice"],
            )
        total = sum(a["count"] for a in p["assignments"])
        unit_history(
            rows,
            event,
            p["platoon_id"],
            f"Day {p['day']}: {_plural(total, 'replacement')} assigned ({', '.join(shares)}); "
            f"{p['left']} left. {when}",
            {"replacements_available": p["left"]},
            dice=p["dice"],
        )

    @Projection.handles(ARRIVED, reads=_the_squad_and_its_new_men)
    def arrived(rows: Rows, event: StoredEvent) -> None:
        p = event.payload
        unit = rows.get(Unit, p["unit_id"])
        if not p["trooper_ids"]:
            if rows.get(Unit, p["platoon_id"]) is not None:
                name = unit["name"] if unit else "a unit"
                unit_history(
                    rows,
                    event,
                    p["platoon_id"],
                    f"Day {p['day']}: replacements for {name} did not arrive: it was disbanded.",
                )
            return
        if unit is None:
            return
        names = []
        for trooper_id in p["trooper_ids"]:
            trooper = rows.get(Trooper, trooper_id)
            if trooper is None:
                continue
            names.append(trooper["name"])
            service_record(rows, event, trooper_id, f"Day {p['day']}: arrived as a replacement.")
        unit_history(
            rows,
            event,
            p["unit_id"],
            f"Day {p['day']}: {_plural(len(names), 'replacement')} arrived: {_names(names)}.",
            {"strength": len(names)},
        )
