"""What a Fast and Dirty battle does to the rosters while it is fought: Resolve lost to Losing
Heart (FaD p.14) when the campaign keeps it for later battles, wounded figures treated by a
Recover Wounded action (p.35), and mission bonus traits (p.62-63) when the campaign keeps them.

The battle events are named here by type and read as the payload dicts the log stores: the
rosters import nothing of ``battles`` (DESIGN §2, ownership).
"""

from __future__ import annotations

from eventlog.projections import Projection, Rows, register
from eventlog.store import StoredEvent
from rosters.in_battle import battle_name
from rosters.models import Trooper, Unit
from rosters.projections import service_record, unit_history
from rules.fad.scales import RESOLVE_WORST, Resolve
from rules.fad.traits import trait_key


@register
class FadInBattleProjection(Projection):
    """Units' roster Resolve after their army lost heart, and troopers' statuses after Recover
    Wounded (rows of the rosters projection)."""

    name = "rosters.fad_in_battle"
    # 2: Recover Wounded treatments (battles.FadWoundedTreated); 3: mission bonus traits kept
    # (battles.FadMissionBonusGiven).
    version = 3

    @Projection.handles("battles.FadHeartLost")
    def heart_lost(rows: Rows, event: StoredEvent) -> None:
        """Option ``morale_losing_heart_persists``: "the Resolve for all units will permanently
        drop" read as for the rest of the campaign, each unit's roster Resolve drops by the
        levels lost (a Reluctant unit stays Reluctant: it was eliminated in the battle)."""
        p = event.payload
        if not p.get("persists"):
            return
        levels = p["levels_after"] - p["levels_before"]
        battle = battle_name(rows, p["battle_id"])
        for shift in p["shifts"]:
            unit = rows.get(Unit, shift["unit_id"])
            if unit is None or not unit["resolve"]:
                continue
            before = Resolve[unit["resolve"].upper()]
            after = Resolve(max(RESOLVE_WORST, before - levels))
            if after == before:
                continue
            rows.update(Unit, shift["unit_id"], resolve=after.name.lower())
            unit_history(
                rows,
                event,
                shift["unit_id"],
                f"Lost heart at {battle}, turn {p['turn']}: resolve from "
                f"{before.name.capitalize()} to {after.name.capitalize()} (FaD p.14).",
                {"resolve": [before.name.lower(), after.name.lower()]},
                battle_id=p["battle_id"],
            )

    @Projection.handles("battles.FadMissionBonusGiven")
    def mission_bonus_given(rows: Rows, event: StoredEvent) -> None:
        """Option ``campaign_mission_bonus_persists``: the traits a mission's bonus gave a unit
        stay with it, among its traits on the roster, for the battles to come (FaD p.62-63)."""
        p = event.payload
        if not p.get("persists"):
            return
        battle = battle_name(rows, p["battle_id"])
        mission = p["mission"].replace("_", " ").title()
        for given in p["units"]:
            unit = rows.get(Unit, given["unit_id"])
            if unit is None:
                continue
            have = {trait_key(t) for t in unit["specialists"]}
            new = [_label(t) for t in given["traits"] if trait_key(t) not in have]
            if not new:
                continue
            rows.update(Unit, given["unit_id"], specialists=[*unit["specialists"], *new])
            unit_history(
                rows,
                event,
                given["unit_id"],
                f"Given {' and '.join(new)} by the {mission} mission's bonus at {battle}, kept "
                "after the battle (FaD p.62-63).",
                {"traits": new},
                battle_id=p["battle_id"],
            )

    @Projection.handles("battles.FadWoundedTreated")
    def wounded_treated(rows: Rows, event: StoredEvent) -> None:
        """FaD p.35 Determine Recovery: a recovered figure is fit again, a stabilised one stays
        down but is no casualty when Checking Resolve, one who died of his wounds is dead."""
        p = event.payload
        battle = battle_name(rows, p["battle_id"])
        outcomes = []
        dead = 0
        for index, treated in enumerate(p["treated"]):
            trooper = rows.get(Trooper, treated["trooper_id"])
            if trooper is None:
                continue
            rows.update(Trooper, treated["trooper_id"], status=treated["status_after"])
            result = _TREATED[treated["result"]]
            dead += treated["result"] == "died_of_wounds"
            roll = f"recovery roll {treated['recovery_number']}"
            service_record(
                rows,
                event,
                treated["trooper_id"],
                f"Treated for wounds at {battle}, turn {p['turn']}: {roll}, {result} (FaD p.35).",
                battle_id=p["battle_id"],
                dice=p["dice"][index : index + 1],
            )
            outcomes.append(f"{trooper['name']} {result}")
        if outcomes and rows.get(Unit, p["unit_id"]) is not None:
            unit_history(
                rows,
                event,
                p["unit_id"],
                f"Recovered wounded at {battle}, turn {p['turn']}: {'; '.join(outcomes)}.",
                {"strength": -dead} if dead else {},
                battle_id=p["battle_id"],
                dice=p["dice"],
            )


def _label(key: str) -> str:
    return key.replace("_", " ").title()


_TREATED = {
    "recovered": "recovered and back in action",
    "stabilised": "stabilised",
    "died_of_wounds": "died of his wounds",
}
