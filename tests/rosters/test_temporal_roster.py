"""The roster as of any point, read from row versions, is the roster the log folds to there.

Random runs of real commands (the scenario's two forces, a battle with casualties and treatment,
adjustments, moves, voids and the after-action) are played through the API; then, for every
point of the log, every read of :class:`TemporalRoster` must equal that of :class:`FoldedRoster`,
and a rebuild must write exactly the versions the commands wrote.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventlog import store
from rosters.models import Force, Trooper, Unit, Vehicle
from rosters.selectors import FoldedRoster, TemporalRoster
from tests.battles.helpers import assert_rebuild_keeps_rows, scenario_campaign

pytestmark = pytest.mark.django_db

QUALITIES = ("green", "regular", "veteran")
PLACES = ("safe_area", "rear_area", "in_the_line")

pick = st.integers(min_value=0, max_value=63)
OPERATIONS = st.one_of(
    st.tuples(st.just("quality"), pick, st.sampled_from(QUALITIES)),
    st.tuples(st.just("leadership"), pick, st.integers(min_value=1, max_value=3)),
    st.tuples(st.just("rename"), pick, st.sampled_from(("Smith", "Jones", "Okafor"))),
    st.tuples(st.just("transfer"), pick, pick),
    st.tuples(st.just("casualty"), pick, st.sampled_from(("wounded", "killed"))),
    st.tuples(st.just("treat"), pick, st.integers(min_value=1, max_value=6)),
    st.tuples(st.just("move"), pick, st.sampled_from(PLACES)),
    st.tuples(st.just("disband"), pick, st.just(None)),
    st.tuples(st.just("void"), pick, st.just(None)),
)


class Run:
    """A campaign of the scenario's forces with a battle begun, and what has been done to it."""

    def __init__(self, umpire, api) -> None:
        self.api = api
        self.campaign = scenario_campaign(umpire, api)
        squads = self._squads()
        forces = {f.side: str(f.id) for f in Force.objects.filter(campaign_id=self.campaign.id)}
        plan = api.post(
            f"/api/v1/campaigns/{self.campaign.id}/battles/",
            {
                "name": "Recon in force",
                "day": 1,
                "attacker": "Blue",
                "sides": [
                    {"side": side, "force_ids": [forces[side]], "mission_motivation": "medium"}
                    for side in ("Blue", "Red")
                ],
            },
        )
        assert plan.status_code == 201, plan.json()
        self.battle = plan.json()["id"]
        committed = api.post(
            f"/api/v1/battles/{self.battle}/commit/", {"unit_ids": [str(u.id) for u in squads]}
        )
        assert committed.status_code == 200, committed.json()
        assert api.post(f"/api/v1/battles/{self.battle}/start/").status_code == 200
        # Sequences of events a void may take back: the commands run here.
        self.voidable: list[int] = []

    def _squads(self) -> list[Unit]:
        return list(
            Unit.objects.filter(campaign_id=self.campaign.id, kind="squad").order_by(
                "force_id", "order"
            )
        )

    def _troopers(self) -> list[Trooper]:
        """The men of the squads, the units committed to the battle, squad by squad."""
        return [
            t
            for squad in self._squads()
            for t in Trooper.objects.filter(unit_id=squad.id).order_by("order")
        ]

    def _post(self, url: str, body: dict[str, Any]) -> None:
        response = self.api.post(url, body)
        # A refused command appends nothing: the run goes on.
        if response.status_code == 201:
            answer = response.json()
            self.voidable.extend(e["sequence"] for e in answer.get("events", [answer]))

    def play(self, operation: str, first: int, second: Any) -> None:
        squads, troopers = self._squads(), self._troopers()
        squad, trooper = squads[first % len(squads)], troopers[first % len(troopers)]
        battle = f"/api/v1/battles/{self.battle}/actions"
        if operation == "quality":
            self._post(f"/api/v1/units/{squad.id}/quality/", {"quality": second, "reason": "x"})
        elif operation == "leadership":
            body = {"leadership": second, "reason": "x"}
            self._post(f"/api/v1/units/{squad.id}/leadership/", body)
        elif operation == "rename":
            self._post(f"/api/v1/troopers/{trooper.id}/rename/", {"name": second, "reason": "x"})
        elif operation == "transfer":
            to = squads[second % len(squads)]
            body = {"to_unit_id": str(to.id), "reason": "x"}
            self._post(f"/api/v1/troopers/{trooper.id}/transfer/", body)
        elif operation == "casualty":
            casualty = {"trooper_id": str(trooper.id), "result": second}
            body = {"unit_id": str(trooper.unit_id), "mode": "named", "casualties": [casualty]}
            self._post(f"{battle}/casualties/", {**body, "dice": []})
        elif operation == "treat":
            body = {"unit_id": str(trooper.unit_id), "dice": [second]}
            self._post(f"{battle}/medical_treatment/", body)
        elif operation == "move":
            self._post(f"/api/v1/units/{squad.id}/move/", {"to": second, "reason": "x"})
        elif operation == "disband":
            self._post(f"/api/v1/units/{squad.id}/disband/", {"reason": "x"})
        elif operation == "void" and self.voidable:
            sequence = self.voidable.pop(first % len(self.voidable))
            body = {"sequence": sequence, "reason": "entered by mistake"}
            self._post(f"/api/v1/campaigns/{self.campaign.id}/voids/", body)

    def finish_battle(self) -> None:
        ended = self.api.post(f"/api/v1/battles/{self.battle}/end/", {"winner": "Blue"})
        assert ended.status_code == 200, ended.json()
        after_action = self.api.post(f"/api/v1/battles/{self.battle}/after-action/", {})
        assert after_action.status_code == 202, after_action.json()


def assert_same_reads(campaign_id, upto: int) -> None:
    folded, temporal = FoldedRoster(campaign_id, upto), TemporalRoster(campaign_id, upto)
    at = f"as of {upto}"
    assert temporal.forces() == folded.forces(), at
    assert temporal.all_units() == folded.all_units(), at
    for force in folded.forces():
        force_id = force["id"]
        assert temporal.force(force_id) == force, at
        assert temporal.units(force_id) == folded.units(force_id), at
        assert temporal.troopers(force_id=force_id) == folded.troopers(force_id=force_id), at
        assert temporal.vehicles(force_id=force_id) == folded.vehicles(force_id=force_id), at
    for unit_id in Unit.objects.filter(campaign_id=campaign_id).values_list("id", flat=True):
        assert temporal.unit(unit_id) == folded.unit(unit_id), at
        assert temporal.troopers(unit_id=unit_id) == folded.troopers(unit_id=unit_id), at
        assert temporal.unit_history(unit_id) == folded.unit_history(unit_id), at
        later = upto // 2
        assert temporal.unit_history(unit_id, after=later) == folded.unit_history(
            unit_id, after=later
        ), at
    for trooper_id in Trooper.objects.filter(campaign_id=campaign_id).values_list("id", flat=True):
        assert temporal.trooper(trooper_id) == folded.trooper(trooper_id), at
        assert temporal.service_record(trooper_id) == folded.service_record(trooper_id), at
    for vehicle_id in Vehicle.objects.filter(campaign_id=campaign_id).values_list("id", flat=True):
        assert temporal.vehicle(vehicle_id) == folded.vehicle(vehicle_id), at


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    during=st.lists(OPERATIONS, min_size=1, max_size=10),
    finish=st.booleans(),
    after=st.lists(OPERATIONS, max_size=6),
)
def test_the_roster_as_of_every_point_is_the_folded_one(umpire, umpire_api, during, finish, after):
    """Commands during the battle; then, if it is ended and its after-action run, more between
    battles (moves are refused while it is fought)."""
    run = Run(umpire, umpire_api)
    for operation in during:
        run.play(*operation)
    if finish:
        run.finish_battle()
        for operation in after:
            run.play(*operation)
    campaign_id = run.campaign.id
    for upto in range(1, store.last_sequence(campaign_id) + 1):
        assert_same_reads(campaign_id, upto)
    assert_rebuild_keeps_rows()


def test_a_void_after_the_point_leaves_the_roster_as_it_stood(umpire, umpire_api):
    """A casualty voided later is still a casualty as of the points between, in the trooper's
    row, his unit's strength and his service record."""
    run = Run(umpire, umpire_api)
    run.play("casualty", 0, "killed")
    killed_at = run.voidable[-1]
    run.play("rename", 1, "Smith")
    run.play("void", 0, None)
    campaign_id = run.campaign.id
    head = store.last_sequence(campaign_id)
    victim = run._troopers()[0]
    then, now = (TemporalRoster(campaign_id, at).trooper(victim.id) for at in (killed_at, head))
    assert (then or {}).get("status") == "dead"
    assert (now or {}).get("status") == "fit"
    for upto in range(killed_at - 1, head + 1):
        assert_same_reads(campaign_id, upto)
    assert_rebuild_keeps_rows()
