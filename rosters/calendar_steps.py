"""What the campaign calendar brings the rosters: troopers back from hospital (an original
leader taking command back, if the options say so), wrecked power suits repaired, and units
rested."""

from __future__ import annotations

import uuid

from django.db.models import F

from campaigns.calendar import calendar_step
from campaigns.models import Campaign
from eventlog import store
from eventlog.projections import voids
from eventlog.store import NewEvent
from rosters import events
from rosters.fitness import location_of
from rosters.models import Trooper, Unit
from rosters.ordering import ranked
from rosters.vocabulary import TrooperRole, TrooperStatus, UnitStatus
from rules.options import parse_options
from rules.rulesets import definition
from rules.sg2.recovery import rest_and_recovery
from rules.sg2.scales import Fatigue

# Units rest anywhere out of the line (SG2 P.61): in a safe or rear area, withdrawn to the rear,
# or in the field, where it takes twice as long.
RESTING = (
    UnitStatus.SAFE_AREA,
    UnitStatus.REAR_AREA,
    UnitStatus.WITHDRAWN,
    UnitStatus.IN_THE_FIELD,
)


# A suit is not repaired for a wearer lost to his side since it went for repair.
SUIT_LOST_WITH = (TrooperStatus.DEAD, TrooperStatus.CAPTURED, TrooperStatus.EVACUATED)

LEADER_LOST = "battles.LeaderCasualtyResolved"  # read by name: rosters does not import battles
RETURNED = "rosters.TrooperReturnedToDuty"


def leadership_when_fallen(campaign: Campaign) -> dict[tuple[str, str], int]:
    """For each (unit, leader) whose fall handed his unit to a successor and who has not come
    back since: the unit's LV when he fell (SG2 P.10)."""
    fallen: dict[tuple[str, str], int] = {}
    voided = voids(campaign.id)
    for event in store.read(campaign.id, types=[LEADER_LOST, RETURNED]):
        if event.sequence in voided:
            continue
        p = event.payload
        if event.type == RETURNED:
            fallen = {key: lv for key, lv in fallen.items() if key[1] != p["trooper_id"]}
        elif p.get("lost", True) and p["successor_id"]:
            fallen.setdefault((p["unit_id"], p["leader_id"]), p["leadership_before"])
    return fallen


def _returned(
    trooper: Trooper,
    day: int,
    fallen: dict[tuple[str, str], int] | None,
    units: dict[uuid.UUID, Unit],
) -> events.TrooperReturnedToDuty:
    """Back on duty; his unit's original leader takes command back if ``fallen`` (option
    ``returning_leader = restore_original``) says his fall handed it to a successor. ``units``
    holds the units of the leaders coming back."""
    restored = None
    if fallen is not None and trooper.role == TrooperRole.LEADER:
        restored = fallen.get((str(trooper.unit_id), str(trooper.id)))
    unit = units.get(trooper.unit_id) if restored is not None else None
    return events.TrooperReturnedToDuty(
        trooper_id=trooper.id,
        day=day,
        leadership_before=unit.leadership if unit is not None else None,
        leadership_restored=restored if unit is not None else None,
    )


@calendar_step(order=10)
def troopers_back_from_hospital(campaign: Campaign, from_day: int, to_day: int) -> list[NewEvent]:
    """SG2 P.61: the injured return to duty on their day. P.10 is silent on an original leader
    coming back: option ``returning_leader`` (``restore_original``: he takes command back)."""
    due = ranked(
        Trooper.objects.filter(
            campaign_id=campaign.id,
            status=TrooperStatus.IN_HOSPITAL,
            hospital_until_day__lte=to_day,
        )
    ).order_by("hospital_until_day", F("force_rank"), "order")
    options = parse_options(campaign.ruleset, campaign.options)
    restore = getattr(options, "returning_leader", None) == "restore_original"
    fallen = leadership_when_fallen(campaign) if restore and due else None
    units: dict[uuid.UUID, Unit] = {}
    if fallen:
        leading = {t.unit_id for t in due if t.role == TrooperRole.LEADER}
        units = {u.id: u for u in Unit.objects.filter(pk__in=leading)} if leading else {}
    returned = []
    for t in due:
        until = t.hospital_until_day
        assert until is not None  # the filter on it left out the troopers without one
        payload = _returned(t, max(until, from_day), fallen, units)
        returned.append(NewEvent.of(payload, stream=f"trooper:{t.id}"))
    return returned


@calendar_step(order=15)
def power_suits_repaired(campaign: Campaign, from_day: int, to_day: int) -> list[NewEvent]:
    """A power-armour suit wrecked in battle (SG2 P.40 roll 5) is repaired on the day its
    battle's after-action set (option ``pa_suit_repair_days``, doubled in the field or short of
    supplies, P.61): from then its wearer is power-armoured again."""
    wrecked = Trooper.objects.filter(
        campaign_id=campaign.id, suit_wrecked=True, suit_repaired_on_day__lte=to_day
    ).exclude(status__in=SUIT_LOST_WITH)
    due = ranked(wrecked).order_by("suit_repaired_on_day", F("force_rank"), "order")
    repaired = []
    for t in due:
        until = t.suit_repaired_on_day
        assert until is not None  # the filter on it left out the suits not yet sent for repair
        payload = events.PowerSuitRepaired(trooper_id=t.id, day=max(until, from_day))
        repaired.append(NewEvent.of(payload, stream=f"trooper:{t.id}"))
    return repaired


@calendar_step(order=30)
def units_rested(campaign: Campaign, from_day: int, to_day: int) -> list[NewEvent]:
    """SG2 P.61: out of the line, fatigue recovers a level every 2 days (doubled in the field
    or short of supplies); an unfit unit is fit again once it has recovered a level."""
    if not definition(campaign.ruleset).has("rest_and_recovery"):
        return []
    options = parse_options(campaign.ruleset, campaign.options)
    resting = Unit.objects.filter(campaign_id=campaign.id, status__in=list(RESTING)).exclude(
        fatigue__in=["", Fatigue.FRESH.name.lower()]
    )
    new = []
    for unit in ranked(resting).order_by(F("force_rank"), "order"):
        days = to_day - from_day
        before = Fatigue[unit.fatigue.upper()]
        outcome = rest_and_recovery(
            fatigue=before,
            days_rested=unit.rest_days + days,
            location=location_of(unit.status),
            supplied=unit.supplied,
            rr_days_per_fatigue_step=options.rr_days_per_fatigue_step,
            field_time_multiplier=options.field_time_multiplier,
            field_doubling_applies_to=options.field_doubling_applies_to,
            rr_counter_reset=options.rr_counter_reset,
        )
        new.append(
            NewEvent.of(
                events.UnitRested(
                    unit_id=unit.id,
                    day=to_day,
                    days=days,
                    fatigue_before=before.name.lower(),
                    fatigue_after=outcome.fatigue.name.lower(),
                    rest_days=outcome.days_toward_next_level,
                    battles_counter_reset=outcome.battles_counter_reset,
                    back_from_withdrawal=unit.unfit and outcome.levels_recovered > 0,
                ),
                stream=f"unit:{unit.id}",
            )
        )
    return new
