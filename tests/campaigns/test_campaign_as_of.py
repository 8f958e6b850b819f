"""The campaign, its journal count and its history as of any point, read from their tables, are
what the log folds to there (``campaigns.as_of``, ADR 28).

The reference is ``eventlog.projections.fold_as_of``: for every point of a campaign with notes,
hidden notes and their reveal, options changes, calendar days, a closed dice epoch and voids of
earlier events, the API's answers as of that point must equal those the fold gives, for the
umpire, a player and an observer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns import as_of, services
from campaigns.api.views import _campaign_json
from campaigns.dice_epochs import dice_epoch_close
from campaigns.models import Campaign, CampaignHistoryEntry, JournalNote, Membership
from campaigns.projections import CAMPAIGN_ROW_EVENTS, CampaignProjection, JournalProjection
from campaigns.visibility import Judge, Reader, reader_of
from eventlog import projections, store
from eventlog.events import VOIDED
from eventlog.projections import MemoryRows, native
from rosters.services import force_import_text
from tests.factories import join_by_invitation

pytestmark = pytest.mark.django_db

BLUE = Path(__file__).resolve().parents[2] / "examples" / "sg2-scenario-1-blue.yaml"


def ok(response, *codes: int) -> Any:
    assert response.status_code in (codes or (200, 201)), response.content[:500]
    return response.json()


def folded(campaign_id, upto: int) -> MemoryRows:
    return projections.fold_as_of(
        campaign_id,
        upto,
        [projections.get(CampaignProjection.name), projections.get(JournalProjection.name)],
    )


def readers(campaign_id) -> list[Reader]:
    """Umpire, player and observer, each with the observers' option either way."""
    found = []
    for role in ("umpire", "player", "observer"):
        for observers_see_hidden in (False, True):
            found.append(
                Reader(
                    campaign_id=campaign_id,
                    role=role,
                    force_ids=frozenset(),
                    forces_visibility="outline",
                    observers_see_hidden=observers_see_hidden,
                )
            )
    return found


def assert_reads_are_the_fold(campaign_id, upto: int) -> None:
    rows = folded(campaign_id, upto)
    at = f"as of {upto}"
    assert as_of.campaign_as_of(campaign_id, upto) == rows.get(Campaign, campaign_id), at
    history = [
        {n: native(v) for n, v in row.items()}
        if isinstance(row, dict)
        else {f.attname: native(getattr(row, f.attname)) for f in row._meta.concrete_fields}
        for row in as_of.history_as_of(campaign_id, upto)
    ]
    expected = sorted(rows.all(CampaignHistoryEntry), key=lambda row: row["sequence"])
    assert history == expected, at
    for reader in readers(campaign_id):
        judge = Judge(reader, at=upto)
        notes = len(judge.shown(rows.all(JournalNote)))
        assert as_of.journal_notes_seen(campaign_id, judge) == notes, (at, reader)


class Table:
    """A campaign through the API with a force, its player and an observer."""

    def __init__(self, umpire, umpire_api, make_user, api_for, name: str = "Ford") -> None:
        self.umpire = umpire
        self.api = umpire_api
        created = ok(umpire_api.post("/api/v1/campaigns/", {"name": name}), 201)
        self.id = created["id"]
        self.base = f"/api/v1/campaigns/{self.id}/"
        force = force_import_text(
            campaign=Campaign.objects.get(pk=self.id),
            text=BLUE.read_text(encoding="utf-8"),
            source=BLUE.name,
            actor=umpire,
        )
        self.members = {"umpire": umpire_api}
        for role, forces in (("player", [force.id]), ("observer", [])):
            user = make_user(f"{role}-{name}")
            join_by_invitation(umpire_api, self.id, user, role, forces)
            self.members[role] = api_for(user)
        self.notes: list[int] = []

    def note(self, text: str, hidden: dict | None = None) -> int:
        body: dict[str, Any] = {"text": text}
        if hidden is not None:
            body["hidden"] = hidden
        sequence = ok(self.api.post(f"{self.base}journal/", body), 201)["sequence"]
        self.notes.append(sequence)
        return sequence

    def options(self, observers_see_hidden: bool) -> None:
        body = {"changes": {"observers_see_hidden": observers_see_hidden}, "reason": "commentary"}
        ok(self.api.patch(f"{self.base}options/", body))

    def calendar(self, days: int) -> None:
        ok(self.api.post(f"{self.base}calendar/", {"days": days}), 201)

    def reveal(self, sequence: int) -> None:
        body = {"sequence": sequence, "reason": "the scouts are back"}
        ok(self.api.post(f"{self.base}reveals/", body), 201)

    def void(self, sequence: int) -> None:
        ok(self.api.post(f"{self.base}voids/", {"sequence": sequence, "reason": "a mistake"}), 201)

    def dice(self) -> None:
        body = {"die": 6, "purpose": "weather", "results": [4]}
        ok(self.api.post(f"{self.base}dice/", body), 201)

    def close_epoch(self) -> None:
        dice_epoch_close(campaign_id=self.id, reason="season's end", actor=self.umpire)

    def last(self) -> int:
        return store.last_sequence(self.id)


def test_the_campaign_as_of_every_point_is_the_folded_one(umpire, umpire_api, make_user, api_for):
    table = Table(umpire, umpire_api, make_user, api_for)
    first = table.note("The company reaches the ford.")
    hidden = table.note("A sniper waits in the mill.", hidden={})
    table.note("Rain all night.")
    table.options(observers_see_hidden=True)
    table.calendar(2)
    table.close_epoch()
    table.reveal(hidden)
    table.note("The relief column is two days out.", hidden={})
    options_changed_again = table.last() + 1
    table.options(observers_see_hidden=False)
    table.note("The bridge is down.")
    table.void(first)  # an earlier note taken back: as of the points before, it still stands
    table.void(options_changed_again)
    table.dice()
    table.calendar(1)
    table.note("Dawn.")

    campaign_id = Campaign.objects.get().id
    memberships = {m.role: m for m in Membership.objects.filter(campaign_id=campaign_id)}
    for upto in range(table.last() + 2):
        if upto:
            assert_reads_are_the_fold(campaign_id, upto)
        rows = folded(campaign_id, upto)
        expected_history = sorted(rows.all(CampaignHistoryEntry), key=lambda row: row["sequence"])
        for role, api in table.members.items():
            caches["reads"].clear()
            detail = api.get(table.base, {"as_of": upto})
            history = api.get(f"{table.base}history/", {"as_of": upto, "limit": 1000})
            row = rows.get(Campaign, campaign_id)
            if row is None:
                assert detail.json()["code"] == "campaign.not_yet_created"
                continue
            reader = reader_of(memberships[role])
            judge = Judge(reader, at=upto)
            expected = dict(_campaign_json(row, role))
            expected["journal_notes"] = len(judge.shown(rows.all(JournalNote)))
            expected["as_of"] = min(upto, table.last())
            assert ok(detail) == expected, (upto, role)
            lines = [(entry["sequence"], entry["summary"]) for entry in ok(history)["results"]]
            assert lines == [
                (entry["sequence"], entry["summary"])
                for entry in expected_history
                if judge.sees_row(entry["sequence"])
            ], (upto, role)


def test_a_void_after_the_point_leaves_the_journal_as_it_stood(
    umpire, umpire_api, make_user, api_for
):
    table = Table(umpire, umpire_api, make_user, api_for)
    first = table.note("The company reaches the ford.")
    table.note("Rain all night.")
    before_void = table.last()
    table.void(first)
    then = ok(table.api.get(table.base, {"as_of": before_void}))
    now = ok(table.api.get(table.base))
    assert (then["journal_notes"], now["journal_notes"]) == (2, 1)
    history = ok(table.api.get(f"{table.base}history/", {"as_of": before_void}))["results"]
    assert "Journal: The company reaches the ford." in [line["summary"] for line in history]


OPERATIONS = st.one_of(
    st.tuples(st.just("note"), st.booleans()),
    st.tuples(st.just("reveal"), st.integers(min_value=0, max_value=31)),
    st.tuples(st.just("options"), st.none()),
    st.tuples(st.just("calendar"), st.integers(min_value=1, max_value=3)),
    st.tuples(st.just("dice"), st.none()),
    st.tuples(st.just("void"), st.integers(min_value=0, max_value=31)),
)


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(operations=st.lists(OPERATIONS, min_size=1, max_size=12))
def test_random_runs_read_as_the_fold_at_every_point(
    umpire, umpire_api, make_user, api_for, operations
):
    table = Table(umpire, umpire_api, make_user, api_for, name=f"Run {Campaign.objects.count()}")
    hidden: list[int] = []
    voidable: list[int] = []
    for operation, argument in operations:
        if operation == "note":
            sequence = table.note("A line of the journal.", hidden={} if argument else None)
            (hidden if argument else voidable).append(sequence)
        elif operation == "reveal" and hidden:
            table.reveal(hidden.pop(argument % len(hidden)))
        elif operation == "options":
            options = Campaign.objects.get(pk=table.id).options
            voidable.append(table.last() + 1)
            table.options(observers_see_hidden=not options.get("observers_see_hidden", False))
        elif operation == "calendar":
            voidable.append(table.last() + 1)
            table.calendar(argument)
        elif operation == "dice":
            table.dice()
        elif operation == "void" and voidable:
            table.void(voidable.pop(argument % len(voidable)))
    for upto in range(1, table.last() + 1):
        assert_reads_are_the_fold(table.id, upto)


class RecordingRows(MemoryRows):
    """Memory rows that remember the event types whose steps wrote the Campaign row."""

    def __init__(self) -> None:
        super().__init__()
        self.event_type = ""
        self.writers: set[str] = set()

    def put(self, model, row) -> None:
        if model is Campaign:
            self.writers.add(self.event_type)
        super().put(model, row)

    def delete(self, model, pk) -> None:
        if model is Campaign:
            self.writers.add(self.event_type)
        super().delete(model, pk)


def test_the_campaign_row_of_the_demo_at_every_point_is_the_full_folds(demo_campaign):
    """Only the events named in CAMPAIGN_ROW_EVENTS write the Campaign row, and folding them
    alone gives the row every projection's fold gives, at every point of the demo's log."""
    campaign_id = demo_campaign.id
    assert not list(store.read(campaign_id, types=[VOIDED]))  # so one pass folds every point
    rows = RecordingRows()
    everything = projections.registered()
    for event in store.read(campaign_id):
        rows.event_type = event.type
        projections.fold_events([event], everything, rows)
        assert as_of.campaign_as_of(campaign_id, event.sequence) == rows.get(
            Campaign, campaign_id
        ), event.sequence
    assert rows.writers <= set(CAMPAIGN_ROW_EVENTS)
    assert rows.writers >= {"campaigns.CampaignCreated", "campaigns.CalendarAdvanced"}


@pytest.mark.parametrize("as_of_point", [False, True])
def test_the_detail_costs_the_same_queries_with_10_or_500_notes(
    umpire, umpire_api, make_user, api_for, as_of_point
):
    counts = []
    for size in (10, 500):
        table = Table(umpire, umpire_api, make_user, api_for, name=f"Notes {size}")
        campaign = Campaign.objects.get(pk=table.id)
        table.note("Hidden from the players.", hidden={})
        for number in range(size):
            services.note_record(campaign=campaign, text=f"Note {number}", actor=umpire)
        table.note("Also hidden.", hidden={})
        query = {"as_of": table.last() - 1} if as_of_point else {}
        for role in ("umpire", "player"):
            caches["reads"].clear()
            with CaptureQueriesContext(connection) as queries:
                answer = ok(table.members[role].get(table.base, query))
            # Two hidden notes, the second recorded after the point: the player reads neither.
            umpire_reads = size + (1 if as_of_point else 2)
            assert answer["journal_notes"] == (umpire_reads if role == "umpire" else size)
            counts.append((size, role, len(queries)))
    by_role = {role: [n for _, r, n in counts if r == role] for role in ("umpire", "player")}
    assert all(len(set(numbers)) == 1 for numbers in by_role.values()), counts
