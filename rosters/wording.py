"""Words that roster lines and battle-log lines share: what happened to a trooper, a vehicle or
a unit in and after battle, told the same way in his service record, his unit's history and the
battle log.

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
    if before == "stabilised" and after == "wounded":
        # Option rewound_reverts_to_untreated (SG2-C): his treatment is undone.
        return "wounded again, untreated"
    if after == "dead":
        return "killed"
    if after == "captured":
        return "taken prisoner"
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


# --- After the action -----------------------------------------------------------------------------


def capitalised(value: str | None) -> str:
    """A code as words, capitalised: ``in_the_line`` reads ``In the line``."""
    return label(value).capitalize()


def faces(dice: list[dict[str, Any]]) -> str:
    """``d6 4, d6 2``: the faces of dice in the order they were used."""
    return ", ".join(f"d{d['die']} {d['result']}" for d in dice)


_FAD_ROW_WORDS = {
    "none": "no replacements",
    "half": "half the losses replaced",
    "full": "back to full strength",
}
_FAD_VEHICLE_FATE_WORDS = {
    "not_repaired": "not repaired",
    "not_replaced": "not replaced",
    "repaired": "repaired",
    "replaced": "replaced",
}


def fad_losses(p: dict[str, Any], troopers: dict[str, str], vehicles: dict[str, str]) -> list[str]:
    """The losses a ``battles.FadLossesRecorded`` names, ``Name killed`` then ``Name destroyed``;
    ``troopers`` and ``vehicles`` name, by id, those still on the rosters (others are left out)."""
    fates = [
        f"{troopers[loss['trooper_id']]} {loss['result']}"
        for loss in p["troopers"]
        if loss["trooper_id"] in troopers
    ]
    return fates + [
        f"{vehicles[hit['vehicle_id']]} {hit['condition']}"
        for hit in p["vehicles"]
        if hit["vehicle_id"] in vehicles
    ]


def fad_infantry_replacements(p: dict[str, Any], battle: str, names: list[str]) -> str:
    """A ``battles.FadInfantryReplacementsRolled``: the unit's losses (``names``) after
    ``battle`` and the replacements that joined."""
    losses = p["losses"]
    summary = f"After {battle}: {losses} loss{'es' if losses != 1 else ''} ({', '.join(names)})"
    if p["row"] is None:
        return summary + "."
    summary += (
        f"; infantry replacements {faces(p['dice'])}: {_FAD_ROW_WORDS[p['row']]}, "
        f"{p['replaced']} replacement{'s' if p['replaced'] != 1 else ''} joined"
    )
    if p["row"] == "half" and p["lone_figure"]:
        summary += " (a lone figure is not returned on 3-4)"
    return summary + "."


def fad_vehicle_replacement(p: dict[str, Any], battle: str, vehicle: str) -> str:
    """A ``battles.FadVehicleReplacementRolled``: what became of ``vehicle`` after ``battle``."""
    rolled = (
        p["rolled_as"]
        if p["rolled_as"] == p["condition"]
        else f"{p['condition']}, counted as {p['rolled_as']}"
    )
    return (
        f"After {battle}: {vehicle} ({rolled}), vehicle replacements {faces(p['dice'])}: "
        f"{_FAD_VEHICLE_FATE_WORDS[p['fate']]}."
    )


def fad_quality_loss(p: dict[str, Any], battle: str) -> str:
    """A ``battles.FadQualityLossRolled``: the unit's quality after ``battle``'s replacements."""
    before, after = capitalised(p["quality_before"]), capitalised(p["quality_after"])
    verdict = f"drops from {before} to {after}" if before != after else f"stays {before}"
    if any(die.get("moot") for die in p["dice"]):
        verdict += f", {before} cannot drop lower"
    newcomers = f"{p['replacements']} replacements"
    reinforcements = p.get("reinforcements", 0)
    if reinforcements:
        # Counted with the pool's troopers (campaign_quality_loss_counts_reinforcements).
        newcomers += f" and {reinforcements} reinforcement{'s' if reinforcements != 1 else ''}"
    return (
        f"After {battle}: {newcomers} of {p['measured_against']}, "
        f"quality loss {faces(p['dice'])}: {verdict}."
    )


def fad_resolve_loss(p: dict[str, Any], battle: str) -> str:
    """A ``battles.FadResolveLossRolled``: the unit's resolve after ``battle``."""
    before, after = capitalised(p["resolve_before"]), capitalised(p["resolve_after"])
    verdict = f"from {before} to {after}" if before != after else f"stays {before}"
    return f"After {battle}: resolve loss {faces(p['dice'])}, {verdict}."
