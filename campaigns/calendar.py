"""The campaign calendar: advancing it appends what the days bring.

Other apps register *calendar steps*: functions that, given the campaign and the days passed,
decide what falls due (troopers back from hospital, units rested, vehicles repaired, replacements
arriving) and return the events that record it. Advancing the calendar is one command: under the
campaign lock it runs every step in order and appends the calendar event and all of theirs
together, so a day is never half-processed and no step decides on a state that has moved on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser

from campaigns.common import campaign_stream
from campaigns.events import CalendarAdvanced
from campaigns.models import Campaign
from eventlog import commands
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import CommandError
from eventlog.store import NewEvent, StoredEvent
from rules.dice import DiceSource

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


class CalendarParams(Params):
    to_day: int | None = None
    days: int | None = None


@commands.command
class CalendarAdvance(Command[CalendarParams, Campaign]):
    """Move the calendar to ``to_day`` (or forward by ``days``) and record what that time
    brings. The calendar never runs backwards."""

    name = "campaigns.calendar_advance"
    Params = CalendarParams
    invalid_code = "calendar.invalid"

    def load(self, ctx: CommandContext, params: CalendarParams) -> Campaign:
        return Campaign.objects.get(pk=ctx.campaign_id)

    def check(self, ctx: CommandContext, state: Campaign, params: CalendarParams) -> None:
        target = _target_day(state, params)
        if target <= state.day:
            raise CommandError(
                "calendar.not_forward",
                f"The campaign is on day {state.day}; the calendar only moves forward.",
                field="to_day" if params.to_day is not None else "days",
            )
        if target - state.day > MAX_DAYS:
            raise CommandError(
                "calendar.too_far", f"Advance at most {MAX_DAYS} days at a time.", field="to_day"
            )

    def decide(
        self, ctx: CommandContext, state: Campaign, params: CalendarParams, dice: DiceSource | None
    ) -> Decision:
        target = _target_day(state, params)
        advanced = CalendarAdvanced(from_day=state.day, to_day=target)
        new = [NewEvent.of(advanced, stream=campaign_stream(state.id))]
        for step in _STEPS:
            new.extend(step.decide(state, state.day, target))
        return Decision(new)


def _target_day(campaign: Campaign, params: CalendarParams) -> int:
    if (params.to_day is None) == (params.days is None):
        raise CommandError("calendar.how_far", "Give either to_day or days.", field="to_day")
    return params.to_day if params.to_day is not None else campaign.day + (params.days or 0)


def calendar_advance(
    *,
    campaign: Campaign,
    actor: AbstractBaseUser,
    to_day: int | None = None,
    days: int | None = None,
) -> list[StoredEvent]:
    """Advance the calendar (see :class:`CalendarAdvance`): the calendar event first, then what
    the days brought."""
    outcome = commands.run(
        CalendarAdvance.name,
        campaign_id=campaign.id,
        params={"to_day": to_day, "days": days},
        actor_id=actor.pk,
    )
    return outcome.events
