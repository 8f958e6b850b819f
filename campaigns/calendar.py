"""The campaign calendar: advancing it appends what the days bring.

Other apps register *calendar steps*: functions that, given the campaign and the days passed,
decide what falls due (troopers back from hospital, units rested, vehicles repaired, replacements
arriving) and return the events that record it. Advancing the calendar runs every step in order
and appends the calendar event and all of theirs in one append, so a day is never half-processed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser

from campaigns.events import CalendarAdvanced
from campaigns.models import Campaign
from eventlog import store
from eventlog.errors import CommandError
from eventlog.store import NewEvent, StoredEvent

CalendarStep = Callable[[Campaign, int, int], list[NewEvent]]


@dataclass(frozen=True)
class _Step:
    order: int
    name: str
    decide: CalendarStep


_STEPS: list[_Step] = []


def calendar_step(order: int) -> Callable[[CalendarStep], CalendarStep]:
    """Register a step; lower ``order`` runs first (arrivals before rest, say)."""

    def register(decide: CalendarStep) -> CalendarStep:
        _STEPS.append(_Step(order, f"{decide.__module__}.{decide.__qualname__}", decide))
        _STEPS.sort(key=lambda step: (step.order, step.name))
        return decide

    return register


MAX_DAYS = 365


def calendar_advance(
    *,
    campaign: Campaign,
    actor: AbstractBaseUser,
    to_day: int | None = None,
    days: int | None = None,
) -> list[StoredEvent]:
    """Move the calendar to ``to_day`` (or forward by ``days``) and record what that time
    brings. The calendar never runs backwards."""
    if (to_day is None) == (days is None):
        raise CommandError("calendar.how_far", "Give either to_day or days.", field="to_day")
    target = to_day if to_day is not None else campaign.day + days
    if target <= campaign.day:
        raise CommandError(
            "calendar.not_forward",
            f"The campaign is on day {campaign.day}; the calendar only moves forward.",
            field="to_day" if to_day is not None else "days",
        )
    if target - campaign.day > MAX_DAYS:
        raise CommandError(
            "calendar.too_far", f"Advance at most {MAX_DAYS} days at a time.", field="to_day"
        )
    stream = f"campaign:{campaign.id}"
    new = [NewEvent.of(CalendarAdvanced(from_day=campaign.day, to_day=target), stream=stream)]
    for step in _STEPS:
        new.extend(step.decide(campaign, campaign.day, target))
    result = store.append(
        campaign.id,
        new,
        expected_versions={stream: store.stream_version(campaign.id, stream)},
        actor_id=actor.pk,
    )
    return result.events
