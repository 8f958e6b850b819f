"""Lists come in pages: by offset for what the campaign holds, by sequence for what its log
orders; a limit or offset out of range is refused rather than quietly replaced."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_campaigns(umpire_api) -> list[str]:
    return [
        umpire_api.post("/api/v1/campaigns/", {"name": name}).json()["id"]
        for name in ("Alpha", "Bravo", "Charlie")
    ]


def test_a_list_by_offset_links_its_neighbours(umpire_api, three_campaigns):
    first = umpire_api.get("/api/v1/campaigns/", {"limit": 2}).json()
    assert (first["count"], len(first["results"]), first["previous"]) == (3, 2, None)
    assert first["next"] == "http://testserver/api/v1/campaigns/?limit=2&offset=2"
    second = umpire_api.get(first["next"]).json()
    assert [c["name"] for c in second["results"]] == ["Charlie"]
    assert second["next"] is None
    assert second["previous"] == "http://testserver/api/v1/campaigns/?limit=2&offset=0"
    names = [c["name"] for c in first["results"] + second["results"]]
    assert sorted(names) == ["Alpha", "Bravo", "Charlie"]


def test_a_list_by_sequence_follows_its_cursor_to_the_end(umpire_api, three_campaigns):
    base = f"/api/v1/campaigns/{three_campaigns[0]}"
    for text in ("Dawn.", "Noon.", "Dusk."):
        assert umpire_api.post(f"{base}/journal/", {"text": text}).status_code == 201
    seen, url = [], f"{base}/journal/?limit=2"
    while url:
        page = umpire_api.get(url).json()
        seen += [note["text"] for note in page["results"]]
        url = page["next"]
    assert seen == ["Dawn.", "Noon.", "Dusk."]
    history = umpire_api.get(f"{base}/history/", {"limit": 1, "after": 1}).json()
    assert [entry["sequence"] for entry in history["results"]] == [2]
    assert "after=2" in history["next"]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"offset": -1}, "offset"),
    ],
)
def test_a_limit_or_offset_out_of_range_is_refused(umpire_api, three_campaigns, query, field):
    response = umpire_api.get("/api/v1/campaigns/", query)
    assert response.status_code == 400
    assert response.json()["field"] == field


def test_a_cursor_out_of_range_is_refused(umpire_api, three_campaigns):
    response = umpire_api.get(f"/api/v1/campaigns/{three_campaigns[0]}/history/", {"after": -1})
    assert (response.status_code, response.json()["field"]) == (400, "after")
