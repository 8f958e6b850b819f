"""Words that roster lines and battle-log lines share: what happened to a trooper or a vehicle
in battle, told the same way in his service record, his unit's history and the battle log.

Plain functions of event payloads (dicts as the log stores them), so both apps can use them:
``battles`` may import ``rosters``, never the other way round.
"""

from __future__ import annotations

from typing import Any

from rules.sg2.casualties import FigureState

TREATED = {
    "dead": "could not be saved: dead",
    "stabilised": "stabilised",
    "fit": "back in action",
}


def label(value: str | None) -> str:
    """A code as words: ``in_the_line`` reads ``in the line``."""
    return (value or "").replace("_", " ")


def joined(names: list[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def casualty_fate(c: dict[str, Any]) -> str:
    """What one resolution did to one trooper (a ``TrooperCasualty`` payload), in words."""
    before, after, figure = c["status_before"], c["status_after"], c["figure_after"]
    pa = c["power_armour_roll"]
    if pa is not None:
        return {
            "stabilised": f"wounded and stabilised by his suit (P.40 roll {pa})",
            "dead": f"fatally wounded in his suit (P.40 roll {pa})",
            "fit": (
                f"unhurt but his suit is wrecked (P.40 roll {pa})"
                if figure == FigureState.SUIT_DISABLED.value
                else f"back in action as his suit rebooted (P.40 roll {pa})"
            ),
        }[after]
    if after == before:
        return f"hit again but still {label(after)}"
    if after == "dead":
        return "killed"
    return "wounded"


def vehicle_hit_effect(p: dict[str, Any]) -> str:
    """A ``battles.VehicleHit``'s damage and the scores behind it: ``systems damaged (impact 9
    against armour 6, then a suspension hit (5 against suspension 4))``."""
    if p["damage"] is None:
        where = f", {p['location']}" if p["location"] else ""
        effect = f"no damage ({'non-penetrating' if p['location'] else 'no effect'}{where})"
    else:
        effect = label(p["damage"])
    scores = f"impact {p['impact_score']} against armour {p['armour_score']}"
    if p["location"]:
        scores += f", then a {p['location']} hit"
        if p["suspension_score"] is not None:
            scores += (
                f" ({p['suspension_impact_score']} against suspension {p['suspension_score']})"
            )
    return f"{effect} ({scores})"


def treatment_help(p: dict[str, Any], medical_unit: str) -> str:
    """Who helped a ``battles.CasualtiesTreated`` treatment, and the modifier they gave, with a
    leading space; ``medical_unit`` names the attending medical unit, if there is one."""
    help_ = []
    if p["medic"]:
        help_.append("a medic")
    if p["medical_unit_id"]:
        help_.append(f"{medical_unit} attending")
    return f" with {' and '.join(help_)} (+{p['modifier']})" if help_ else ""


def treatment_roll(die: list[dict[str, Any]], modifier: int, total: int) -> str:
    """``4 + 1 = 5``: one treatment's die, modifier and total (empty without a die)."""
    return f"{die[0]['result']} + {modifier} = {total}" if die else ""


def surrender_captor(p: dict[str, Any]) -> str:
    """`` to Red`` when a ``battles.UnitSurrendered`` names who took the prisoners."""
    return f" to {p['prisoners_taken_by']}" if p["prisoners_taken_by"] else ""
