"""Event types of Fast and Dirty after a battle (FaD p.64-66): the losses the umpire names, the
post-battle steps, campaign points and the reinforcement pool."""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import Field

from campaigns.events import DieRoll
from eventlog.catalogue import EventPayload, event_type
from rosters.vocabulary import TrooperStatus, VehicleState
from rules.fad import points as points_rules

LOSSES_RECORDED = "battles.FadLossesRecorded"
INFANTRY_REPLACED = "battles.FadInfantryReplacementsRolled"
VEHICLE_REPLACED = "battles.FadVehicleReplacementRolled"
QUALITY_LOSS = "battles.FadQualityLossRolled"
RESOLVE_LOSS = "battles.FadResolveLossRolled"
POINTS_AWARDED = "battles.FadCampaignPointsAwarded"
POINTS_SPENT = "battles.FadCampaignPointsSpent"
REINFORCEMENTS_ROLLED = "battles.FadReinforcementsRolled"
LossFate = Literal["killed", "wounded", "eliminated"]


class LostFigure(EventPayload):
    trooper_id: uuid.UUID
    result: Literal["killed", "wounded"]
    status_before: TrooperStatus


class DamagedVehicle(EventPayload):
    vehicle_id: uuid.UUID
    condition: Literal["damaged", "destroyed", "abandoned"]
    state_before: VehicleState


@event_type(LOSSES_RECORDED, stream="battle")
class FadLossesRecorded(EventPayload):
    """A unit's losses in a Fast and Dirty battle: figures killed or wounded (p.19-20, p.35)
    and vehicles damaged, destroyed or abandoned (p.13, p.27), named by the umpire or resolved
    by a battle action."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    turn: int = Field(ge=0)
    troopers: list[LostFigure] = Field(default_factory=list)
    vehicles: list[DamagedVehicle] = Field(default_factory=list)
    cause: Literal[
        "named", "fire", "close_assault", "morale", "recon_ambush", "mine", "reported"
    ] = Field(
        default="named",
        description="named: by the umpire (fad_losses); fire: fad_shoot, fad_blast, "
        "fad_shoot_vehicle or fad_artillery_strike; close_assault: fad_close_assault or "
        "fad_assault_vehicle; morale: a broken crew bailing out (p.13); recon_ambush: a recon "
        "unit destroyed before the battle (p.61); mine: fad_minefield (p.31); reported: a "
        "player's battle report, decided by the umpire after the battle.",
    )
    report_id: uuid.UUID | None = Field(
        default=None,
        description="reported: the player's battle report the umpire accepted it from.",
    )


class LostTrooper(EventPayload):
    trooper_id: uuid.UUID
    fate: LossFate


class EnlistedTrooper(EventPayload):
    """A replacement who joined the unit, armed like the figure he replaces: carried by
    version 1 of the replacement events, which joined him themselves."""

    trooper_id: uuid.UUID
    order: int = Field(ge=0)
    name: str
    role: str
    weapon: str = ""
    armour: str = ""
    armour_die: int | None = None
    power_armour: bool = False
    specialism: str = ""


def _replacements_on_own_streams(payload: dict[str, Any]) -> dict[str, Any]:
    # Version 1 joined its replacements itself (``enlisted``): they are its newcomers.
    return {**payload, "trooper_ids": [t["trooper_id"] for t in payload.get("enlisted", [])]}


@event_type(
    INFANTRY_REPLACED, stream="battle", version=2, upcasters={1: _replacements_on_own_streams}
)
class InfantryReplacementsRolled(EventPayload):
    """A unit's losses in a battle and how many were replaced (FaD p.66 INFANTRY REPLACEMENTS:
    d6 1-2 none, 3-4 half rounded up, a lone figure not returned, 5-6 full strength).

    Version 2: the replacements (``trooper_ids``) are enlisted on their own streams
    (``rosters.TrooperEnlisted`` naming the battle) just before this event, as SG2's are;
    version 1 joined them itself (``enlisted``, empty from version 2)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    lost: list[LostTrooper]
    losses: int = Field(ge=0, description="Losses the table reads (a routed unit may count more).")
    strength_before: int = Field(ge=0)
    initial_strength: int = Field(ge=0)
    lone_figure: bool
    row: Literal["none", "half", "full"] | None = Field(description="None: no losses, no roll.")
    replaced: int = Field(ge=0)
    enlisted: list[EnlistedTrooper] = Field(
        default_factory=list, description="Version 1 only: the replacements it joined itself."
    )
    dice: list[DieRoll] = Field(default_factory=list)
    trooper_ids: list[uuid.UUID] = Field(
        default_factory=list,
        description="The replacements who joined, enlisted on their own streams just before.",
    )
    removed: bool = Field(
        default=False,
        description="The unit was wiped out, received no replacements and left the roster "
        "(campaign_empty_units = removed); by default it stays at 0.",
    )


@event_type(
    VEHICLE_REPLACED, stream="battle", version=2, upcasters={1: _replacements_on_own_streams}
)
class VehicleReplacementRolled(EventPayload):
    """Whether a damaged vehicle was repaired or a destroyed one replaced (FaD p.66).

    Version 2: the crew back with a repair (``trooper_ids``) are enlisted on their own streams
    just before this event; version 1 joined them itself (``enlisted``)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    vehicle_id: uuid.UUID
    condition: Literal["damaged", "destroyed", "abandoned"]
    rolled_as: Literal["damaged", "destroyed"]
    fate: Literal["not_repaired", "not_replaced", "repaired", "replaced"]
    state_before: VehicleState
    state_after: VehicleState
    dice: list[DieRoll] = Field(default_factory=list)
    crew_losses: bool = Field(
        default=False,
        description="Rolled for crew killed on the vehicle, which survived: counted as damage "
        "(campaign_vehicle_crew_losses = counts_as_damaged, the default).",
    )
    lost: list[LostTrooper] = Field(
        default_factory=list, description="The crew lost, counted out of the unit."
    )
    enlisted: list[EnlistedTrooper] = Field(
        default_factory=list,
        description="Version 1 only: the crew back with the repair, joined by this event.",
    )
    trooper_ids: list[uuid.UUID] = Field(
        default_factory=list,
        description="The crew back with the repair, enlisted on their own streams just before.",
    )


@event_type(QUALITY_LOSS, stream="battle")
class QualityLossRolled(EventPayload):
    """A unit that took at least half its strength in replacements rolled d6: 1-2 it lost a
    level of quality (FaD p.66 QUALITY LOSS). Rolled after the battle's steps 1-4, or with
    ``campaign_quality_loss_counts_reinforcements`` when the reinforcement pool brings the
    unit's newcomers to half its strength (then ``reinforcements`` counts the pool's)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    replacements: int = Field(ge=0)
    reinforcements: int = Field(
        default=0,
        ge=0,
        description="Troopers of the reinforcement pool counted with the replacements "
        "(campaign_quality_loss_counts_reinforcements); 0 for the roll of step 3.",
    )
    measured_against: int = Field(ge=0)
    quality_before: str
    quality_after: str
    dice: list[DieRoll] = Field(default_factory=list)


@event_type(RESOLVE_LOSS, stream="battle")
class ResolveLossRolled(EventPayload):
    """A unit that suffered losses or damage rolled d6: 1-2 resolve down a level, 3-4 no
    change, 5-6 up a level (FaD p.66 RESOLVE LOSS)."""

    battle_id: uuid.UUID
    unit_id: uuid.UUID
    resolve_before: str
    resolve_after: str
    dice: list[DieRoll] = Field(default_factory=list)


@event_type(POINTS_AWARDED, stream="battle")
class CampaignPointsAwarded(EventPayload):
    """A force received its campaign points after a battle: 2 per reinforced platoon (FaD p.66
    EXPERIENCE). Without banking, points left from before lapse."""

    force_id: uuid.UUID
    battle_id: uuid.UUID
    reinforced_platoons: int = Field(ge=0)
    points: int = Field(ge=0)
    lapsed: int = Field(ge=0, description="Unspent points from before that were lost.")
    balance: int = Field(ge=0, description="Points to spend now.")


class PurchaseRecord(EventPayload):
    """One item bought, and what it changed."""

    kind: points_rules.PurchaseKind
    target: str = ""
    detail: str = ""
    cost: int = Field(ge=1)
    before: str | None = None
    after: str | None = None
    trooper_id: uuid.UUID | None = Field(
        default=None,
        description="The lone figure returned, or the squad leader whose experience was raised.",
    )


@event_type(POINTS_SPENT, stream="force")
class CampaignPointsSpent(EventPayload):
    """A force spent campaign points on the price list (FaD p.66 EXPERIENCE)."""

    force_id: uuid.UUID
    battle_id: uuid.UUID
    purchases: list[PurchaseRecord]
    budget: int = Field(ge=0)
    spent: int = Field(ge=0)
    lost: int = Field(ge=0, description="Unspent points lost (no banking).")
    balance: int = Field(ge=0, description="Points kept for later (banking).")


class ReinforcedUnit(EventPayload):
    unit_id: uuid.UUID
    trooper_ids: list[uuid.UUID]


class NewSquadRecord(EventPayload):
    unit_id: uuid.UUID
    size: int = Field(ge=5, le=8)
    quality: str
    resolve: str
    squad_leader_experience: str
    trooper_ids: list[uuid.UUID]


def _enlistments_named_no_battle(payload: dict[str, Any]) -> dict[str, Any]:
    # Version 1's troopers were enlisted without their battle: this event told it.
    return {**payload, "enlistments_name_battle": False}


@event_type(
    REINFORCEMENTS_ROLLED, stream="force", version=2, upcasters={1: _enlistments_named_no_battle}
)
class ReinforcementsRolled(EventPayload):
    """A force rolled its reinforcement pool, 2d6 plus a d6 per point spent on one, and placed
    the troopers (FaD p.66 REINFORCEMENTS); a new squad, if formed, was raised just before, and
    the troopers enlisted on their own streams.

    Version 2: their enlistments name the battle and open their service records with it
    (``enlistments_name_battle``); version 1's did not, and this event told the battle."""

    force_id: uuid.UUID
    battle_id: uuid.UUID
    extra_dice: int = Field(ge=0)
    pool: int = Field(ge=0)
    units: list[ReinforcedUnit] = Field(default_factory=list)
    new_squad: NewSquadRecord | None = None
    unused: int = Field(ge=0)
    dice: list[DieRoll] = Field(default_factory=list)
    banked: int = Field(
        default=0,
        ge=0,
        description="Troopers the force's previous pool left unplaced and banked, added to "
        "this pool (campaign_unused_reinforcements = banked).",
    )
    banked_for_next: int = Field(
        default=0,
        ge=0,
        description="Of the unused troopers, those banked for the force's next pool; with "
        "campaign_unused_reinforcements = lost (the default), none.",
    )
    enlistments_name_battle: bool = Field(
        default=True,
        description="The troopers' enlistments name the battle (False before version 2).",
    )
