"""Histories and logs come a page at a time, each page for the same queries however long the
history: a unit's history, a trooper's service record, a battle's log, the campaign's events,
history and journal, for the umpire and for a player."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from eventlog.api.read_cache import forget_streams
from rosters.api import views
from rosters.models import Force, Trooper, Unit
from tests.battles.conftest import EXAMPLES
from tests.factories import campaign_for, join_by_invitation

pytestmark = pytest.mark.django_db

BLUE, RED = "sg2-scenario-1-blue.yaml", "sg2-scenario-1-red.yaml"
PAGE = 5


@pytest.fixture
def blue_player(make_user):
    return make_user("blue-player")


class Story:
    """A campaign with the two forces of SG2 scenario 1 and a battle between them, and a way to
    make every history in it longer: renames (the trooper's record and his unit's history),
    turns (the battle's log) and notes (the journal)."""

    def __init__(self, umpire, api, player=None) -> None:
        self.api = api
        self.campaign = campaign_for(umpire, name="Long story")
        for source in (BLUE, RED):
            response = api.post(
                f"/api/v1/campaigns/{self.campaign.id}/forces/",
                {"roster": (EXAMPLES / source).read_text(), "source": source},
            )
            assert response.status_code == 201, response.json()
        forces = {f.side: f for f in Force.objects.filter(campaign_id=self.campaign.id)}
        if player is not None:
            join_by_invitation(api, self.campaign.id, player, "player", [forces["Blue"].id])
        planned = api.post(
            f"/api/v1/campaigns/{self.campaign.id}/battles/",
            {
                "name": "Hill 402",
                "day": 1,
                "sides": [
                    {"side": side, "force_ids": [str(forces[side].id)]} for side in ("Blue", "Red")
                ],
            },
        )
        assert planned.status_code == 201, planned.json()
        self.battle = f"/api/v1/battles/{planned.json()['id']}/"
        manned = Trooper.objects.filter(campaign_id=self.campaign.id)
        units = [str(u) for u in dict.fromkeys(manned.values_list("unit_id", flat=True))]
        assert api.post(f"{self.battle}commit/", {"unit_ids": units}).status_code == 200
        assert api.post(f"{self.battle}start/").status_code == 200
        self.unit = Unit.objects.filter(force_id=forces["Blue"].id, kind="squad")[0]
        self.trooper = Trooper.objects.filter(unit_id=self.unit.id).order_by("order")[0]
        self.renames = 0

    def longer(self, times: int) -> None:
        for _ in range(times):
            self.renames += 1
            renamed = self.api.post(
                f"/api/v1/troopers/{self.trooper.id}/rename/",
                {"name": f"Sgt Able {self.renames}", "reason": "the clerk again"},
            )
            assert renamed.status_code == 201, renamed.json()
            assert self.api.post(f"{self.battle}turn/").status_code == 200
            noted = self.api.post(
                f"/api/v1/campaigns/{self.campaign.id}/journal/", {"text": "Another day."}
            )
            assert noted.status_code == 201, noted.json()

    def pages(self) -> dict[str, str]:
        campaign = f"/api/v1/campaigns/{self.campaign.id}"
        return {
            "unit history": f"/api/v1/units/{self.unit.id}/history/",
            "service record": f"/api/v1/troopers/{self.trooper.id}/service-record/",
            "trooper": f"/api/v1/troopers/{self.trooper.id}/",
            "battle log": f"{self.battle}log/",
            "campaign events": f"{campaign}/events/",
            "campaign history": f"{campaign}/history/",
            "journal": f"{campaign}/journal/",
        }


def _counted(captured: CaptureQueriesContext) -> int:
    """The queries a read made, but for the note of when its token was last used, written
    once every few minutes whatever the read."""
    return sum('"accounts_apitoken" SET' not in q["sql"] for q in captured.captured_queries)


def _queries_of_pages(api, pages: dict[str, str]) -> dict[str, int]:
    counted = {}
    for name, url in pages.items():
        # Each read as the process's first of its stream: a later one asks for the campaign's
        # position with its token (ADR 27), one query fewer.
        forget_streams()
        with CaptureQueriesContext(connection) as captured:
            response = api.get(url, {"limit": PAGE} if name != "trooper" else None)
        assert response.status_code == 200, (name, response.json())
        body = response.json()
        if name != "trooper":
            assert len(body["results"]) >= PAGE, name
            assert body["next"], name
        counted[name] = _counted(captured)
    return counted


@pytest.mark.parametrize("reader", ["umpire", "player"])
def test_a_page_of_any_history_costs_the_same_queries_however_long_it_is(
    umpire, umpire_api, api_for, blue_player, reader
):
    api = umpire_api if reader == "umpire" else api_for(blue_player)
    story = Story(umpire, umpire_api, blue_player)
    story.longer(PAGE + 1)
    short = _queries_of_pages(api, story.pages())
    story.longer(60)
    assert _queries_of_pages(api, story.pages()) == short


def _follow(api, url: str, take: Callable[[dict[str, Any]], list[Any]]) -> list[Any]:
    seen: list[Any] = []
    while url:
        body = api.get(url).json()
        seen += take(body)
        url = body["next"]
    return seen


def test_a_service_record_is_paged_by_its_cursor(umpire, umpire_api, monkeypatch):
    story = Story(umpire, umpire_api)
    story.longer(4)
    record = f"/api/v1/troopers/{story.trooper.id}/service-record/?limit=2"
    summaries = _follow(umpire_api, record, lambda page: [r["summary"] for r in page["results"]])
    assert len(summaries) == 5
    assert summaries[0].startswith("Joined")
    assert summaries[1:] == [
        f"Renamed from {before} to Sgt Able {n}: the clerk again"
        for n, before in enumerate([story.trooper.name, *[f"Sgt Able {n}" for n in (1, 2, 3)]], 1)
    ]

    # The trooper's detail carries the first lines, and links to the rest.
    monkeypatch.setattr(views, "SERVICE_RECORD_IN_DETAIL", 2)
    detail = umpire_api.get(f"/api/v1/troopers/{story.trooper.id}/").json()
    assert [r["summary"] for r in detail["service_record"]] == summaries[:2]
    assert "/service-record/?" in detail["service_record_next"]
    rest = _follow(
        umpire_api, detail["service_record_next"], lambda p: [r["summary"] for r in p["results"]]
    )
    assert rest == summaries[2:]
    monkeypatch.setattr(views, "SERVICE_RECORD_IN_DETAIL", 100)
    caches["reads"].clear()  # as a release that changes it starts without kept reads (ADR 27)
    detail = umpire_api.get(f"/api/v1/troopers/{story.trooper.id}/").json()
    assert len(detail["service_record"]) == 5
    assert detail["service_record_next"] is None


@pytest.mark.parametrize("reader", ["umpire", "player"])
def test_a_page_of_the_journal_reads_about_a_page_of_its_notes(
    umpire, umpire_api, api_for, blue_player, reader
):
    # The whole journal, asked as one stream, would be read (and on PostgreSQL held) whole at
    # a million notes before the first page was sent.
    api = umpire_api if reader == "umpire" else api_for(blue_player)
    story = Story(umpire, umpire_api, blue_player)
    story.longer(60)
    journal = story.pages()["journal"]
    with CaptureQueriesContext(connection) as captured:
        first = api.get(journal, {"limit": PAGE})
    assert first.status_code == 200, first.json()
    assert len(first.json()["results"]) == PAGE
    notes = [q["sql"] for q in captured.captured_queries if "campaigns_journalnote" in q["sql"]]
    assert notes
    assert all("LIMIT" in sql for sql in notes), notes
    # Followed to its end, the pages hold every note once, in order.
    sequences = _follow(
        api, f"{journal}?limit={PAGE}", lambda page: [n["sequence"] for n in page["results"]]
    )
    assert len(sequences) >= 60
    assert sequences == sorted(set(sequences))
