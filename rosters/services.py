"""Roster use cases for Python callers (pages, management commands, tests): loading a force and
the umpire's adjustments, each run as its command (:mod:`rosters.force_import`,
:mod:`rosters.adjustments`, :mod:`rosters.regroup`, :mod:`rosters.moves`).

The model objects these take only name what to act on: each command reads them again under
the campaign's lock.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from campaigns.models import Campaign
from eventlog import commands
from eventlog.store import StoredEvent
from rosters import adjustments, regroup
from rosters.force_import import ForceImport, ForceImportParams, roster_spec
from rosters.models import Force, Trooper, Unit
from rosters.moves import LOCATIONS, UNIT_BUSY_CHECKS, UnitBusyCheck, UnitMove
from rosters.roster_file import ForceSpec

__all__ = [
    "LOCATIONS",
    "UNIT_BUSY_CHECKS",
    "UnitBusyCheck",
    "force_import",
    "force_import_text",
    "stream",
    "trooper_rename",
    "trooper_transfer",
    "unit_attach",
    "unit_detach",
    "unit_disband",
    "unit_leadership_set",
    "unit_move",
    "unit_quality_set",
    "units_regroup",
]

stream = adjustments.stream


def _event(name: str, campaign: Campaign, actor: AbstractBaseUser, /, **params: Any) -> StoredEvent:
    """Run an adjustment command and return the one event it appended."""
    outcome = commands.run(name, campaign_id=campaign.id, params=params, actor_id=actor.pk)
    return outcome.events[0]


# --- Loading a force -----------------------------------------------------------------------------


def force_import_text(
    *, campaign: Campaign, text: str, source: str, actor: AbstractBaseUser
) -> Force:
    """Parse a roster file (YAML or JSON) and raise its force in the campaign.

    A malformed file raises :class:`rosters.force_import.RosterRejected` listing every problem;
    nothing is appended.
    """
    spec = roster_spec(text, ruleset=campaign.ruleset, source=source)
    return force_import(campaign=campaign, spec=spec, source=source, actor=actor)


def force_import(
    *, campaign: Campaign, spec: ForceSpec, source: str, actor: AbstractBaseUser
) -> Force:
    """Raise a force from a parsed roster: one event for the force, then one per unit,
    trooper and vehicle, all appended together."""
    outcome = commands.run(
        ForceImport.name,
        campaign_id=campaign.id,
        params=ForceImportParams(force=spec, source=source),
        actor_id=actor.pk,
    )
    return Force.objects.get(pk=outcome.result)


# --- Umpire adjustments --------------------------------------------------------------------------


def unit_quality_set(
    *, campaign: Campaign, unit: Unit, quality: str, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    """Set a unit's quality by the umpire's judgement (SG2 P.60's alternative to points)."""
    return _event(
        adjustments.UnitQualitySet.name,
        campaign,
        actor,
        unit_id=unit.id,
        quality=quality,
        reason=reason,
    )


def unit_leadership_set(
    *, campaign: Campaign, unit: Unit, leadership: int, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    """Set a unit's leadership value (1 best, 3 worst; SG2 P.9)."""
    return _event(
        adjustments.UnitLeadershipSet.name,
        campaign,
        actor,
        unit_id=unit.id,
        leadership=leadership,
        reason=reason,
    )


def trooper_rename(
    *, campaign: Campaign, trooper: Trooper, name: str, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    return _event(
        adjustments.TrooperRename.name,
        campaign,
        actor,
        trooper_id=trooper.id,
        name=name,
        reason=reason,
    )


def trooper_transfer(
    *, campaign: Campaign, trooper: Trooper, to_unit: Unit, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    """Move a trooper to another unit of the same force."""
    return _event(
        adjustments.TrooperTransfer.name,
        campaign,
        actor,
        trooper_id=trooper.id,
        to_unit_id=to_unit.id,
        reason=reason,
    )


def unit_attach(
    *, campaign: Campaign, unit: Unit, to_unit: Unit, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    """Attach a unit to another unit of its force (a section to a platoon, say)."""
    return _event(
        adjustments.UnitAttach.name,
        campaign,
        actor,
        unit_id=unit.id,
        to_unit_id=to_unit.id,
        reason=reason,
    )


def unit_detach(
    *, campaign: Campaign, unit: Unit, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    return _event(adjustments.UnitDetach.name, campaign, actor, unit_id=unit.id, reason=reason)


def units_regroup(
    *, campaign: Campaign, unit: Unit, other: Unit, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    """Merge two depleted units into ``unit`` (SG2 P.17 REGROUPING); ``other`` is disbanded
    into it."""
    return _event(
        regroup.UnitsRegroup.name,
        campaign,
        actor,
        unit_id=unit.id,
        with_unit_id=other.id,
        reason=reason,
    )


def unit_disband(
    *, campaign: Campaign, unit: Unit, reason: str, actor: AbstractBaseUser
) -> StoredEvent:
    return _event(adjustments.UnitDisband.name, campaign, actor, unit_id=unit.id, reason=reason)


def unit_move(
    *, campaign: Campaign, unit: Unit, to: str, reason: str = "", actor: AbstractBaseUser
) -> StoredEvent:
    """Move a unit between the line, a safe area, a rear area and the field (SG2 P.61: only
    units out of the line rest, only those in a safe area take replacements, only a rear area
    repairs DISABLED vehicles; an unfit unit sent back into the line disintegrates)."""
    return _event(UnitMove.name, campaign, actor, unit_id=unit.id, to=to, reason=reason)
