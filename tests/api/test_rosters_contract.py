"""The rosters API as its schema publishes it: the lists that grow are pages with working links
and refuse a bad limit, their filters filter, the lists of a force's units and troopers follow
the force detail's visibility rule, and what the endpoints answer is exactly what the schema
describes (no key left out of it, none missing from the answer)."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from eventlog import store
from rosters.api.views import history_page
from rosters.models import Force, Trooper, Unit
from tests.battles.test_after_action import BLUE, RED, act, start
from tests.factories import campaign_for
from tests.rosters.conftest import PLATOON

pytestmark = pytest.mark.django_db

RESERVE = PLATOON.replace("side: Royal Marines", "side: Blue")


# --- The schema, as a JSON Schema validator reads it ---------------------------------------------


def _strict(node: Any) -> Any:
    """OpenAPI 3.0 to JSON Schema: ``nullable`` becomes a null type, and an object with its
    properties listed admits no others, so an answer with an undocumented key fails."""
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _strict(value) for key, value in node.items()}
    if node.get("type") == "object" and "properties" in node:
        node.setdefault("additionalProperties", False)
    if node.pop("nullable", False):
        if "type" in node:
            node["type"] = [node["type"], "null"]
        else:
            node = {"anyOf": [node, {"type": "null"}]}
    return node


@pytest.fixture(scope="module")
def components() -> dict[str, Any]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return _strict(copy.deepcopy(schema["components"]))


@pytest.fixture(scope="module")
def operations() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)["paths"]


def conforms(components: dict[str, Any], component: str, body: Any) -> None:
    jsonschema.validate(
        body,
        {"$ref": f"#/components/schemas/{component}", "components": components},
        format_checker=jsonschema.FormatChecker(),
    )


def _answer_component(operations: dict[str, Any], path: str, method: str, code: str) -> str:
    content = operations[path][method]["responses"][code]["content"]["application/json"]
    return content["schema"]["$ref"].rpartition("/")[2]


# --- A campaign to read ---------------------------------------------------------------------------


@pytest.fixture
def table(umpire, umpire_api, make_user, join, api_for):
    """Blue patrol (Alpha Squad: Baker wounded and Dog killed in a battle under way), Red
    militia, and a Blue reserve platoon whose 2nd Squad rests in a safe area; Red's player."""
    campaign = campaign_for(umpire, name="Kessler Ridge")
    for text in (BLUE, RED, RESERVE):
        response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.name: f for f in Force.objects.filter(campaign_id=campaign.id)}
    raised = store.last_sequence(campaign.id)
    units = {u.name: u for u in Unit.objects.filter(campaign_id=campaign.id)}
    moved = umpire_api.post(
        f"/api/v1/units/{units['2nd Squad'].id}/move/", {"to": "safe_area", "reason": "refit"}
    )
    assert moved.status_code == 201, moved.json()
    alpha, red = units["Alpha Squad"], units["Red Squad"]
    sides = {"Blue": forces["Blue patrol"], "Red": forces["Red militia"]}
    url = start(umpire_api, campaign, sides, [alpha, red], name="Hill 402", day=1)
    men = {t.name: t for t in Trooper.objects.filter(campaign_id=campaign.id)}
    for result, name in (("wounded", "Pte Baker"), ("killed", "Pte Dog")):
        act(umpire_api, url, "casualties", {
            "unit_id": str(alpha.id), "mode": "named", "dice": [],
            "casualties": [{"trooper_id": str(men[name].id), "result": result}],
        })  # fmt: skip
    player = make_user("red-player")
    join(campaign.id, player, "player", [forces["Red militia"].id])
    return {
        "campaign": campaign,
        "forces": forces,
        "units": units,
        "raised": raised,
        "red": api_for(player),
    }


def _follow(api, url: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Every item of a list, page after page by its ``next`` links."""
    items: list[dict[str, Any]] = []
    response = api.get(url, params)
    while True:
        assert response.status_code == 200, response.json()
        body = response.json()
        items.extend(body["results"])
        if body["next"] is None:
            return items
        response = api.get(body["next"])


# --- Pages ----------------------------------------------------------------------------------------


def test_the_forces_are_a_page_with_links_to_its_neighbours(table, umpire_api):
    url = f"/api/v1/campaigns/{table['campaign'].id}/forces/"
    first = umpire_api.get(url, {"limit": 2}).json()
    assert first["count"] == 3
    assert [f["name"] for f in first["results"]] == ["Blue patrol", "Red militia"]
    assert first["previous"] is None
    assert "offset=2" in first["next"]
    assert "limit=2" in first["next"]
    second = umpire_api.get(first["next"]).json()
    assert [f["name"] for f in second["results"]] == ["3rd Platoon"]
    assert second["next"] is None
    assert "offset=0" in second["previous"]
    assert [f["name"] for f in _follow(umpire_api, url, {"limit": 1})] == [
        "Blue patrol",
        "Red militia",
        "3rd Platoon",
    ]


def test_a_forces_units_are_a_page_in_the_order_of_its_organisation(table, umpire_api):
    reserve = table["forces"]["3rd Platoon"]
    url = f"/api/v1/forces/{reserve.id}/units/"
    page = umpire_api.get(url, {"limit": 2}).json()
    assert (page["count"], [u["name"] for u in page["results"]]) == (
        4,
        ["3rd Platoon", "Platoon HQ"],
    )
    assert [u["name"] for u in _follow(umpire_api, url, {"limit": 3})] == [
        "3rd Platoon",
        "Platoon HQ",
        "1st Squad",
        "2nd Squad",
    ]
    hq = page["results"][1]
    assert (hq["strength"], hq["starting_confidence"], hq["is_formation"]) == (
        3,
        "confident",
        False,
    )


def test_a_forces_troopers_are_a_page_unit_by_unit(table, umpire_api):
    reserve = table["forces"]["3rd Platoon"]
    names = [
        t["name"]
        for t in _follow(umpire_api, f"/api/v1/forces/{reserve.id}/troopers/", {"limit": 4})
    ]
    assert names == [
        "Lt. Anand Rao",
        "Sgt. Maggie Doyle",
        "Cpl. Tom Frye",
        "Sgt. Ike Mbeki",
        "Pte. Lou Grant",
        "Pte. Ada Kerr",
        "Pte. Sam Ito",
        "Pte. Joe Bloch",
        "Cpl. Dee Osei",
        "Pte. Rob Hale",
        "Pte. Kim Park",
    ]


def test_a_units_history_is_a_page_by_sequence(table, umpire_api):
    alpha = table["units"]["Alpha Squad"]
    for leadership in (1, 3, 2):
        response = umpire_api.post(
            f"/api/v1/units/{alpha.id}/leadership/",
            {"leadership": leadership, "reason": "a new sergeant"},
        )
        assert response.status_code == 201, response.json()
    url = f"/api/v1/units/{alpha.id}/history/"
    whole = umpire_api.get(url).json()
    assert whole["next"] is None
    sequences = [line["sequence"] for line in whole["results"]]
    assert sequences == sorted(sequences)
    assert len(sequences) >= 6
    first = umpire_api.get(url, {"limit": 2}).json()
    assert first["results"] == whole["results"][:2]
    assert f"after={sequences[1]}" in first["next"]
    assert _follow(umpire_api, url, {"limit": 2}) == whole["results"]
    # The cursor is the event's sequence: what follows it, whatever was read before.
    later = umpire_api.get(url, {"after": sequences[-2]}).json()
    assert later == {"results": whole["results"][-1:], "next": None}


def _lines(*sequences: int) -> list[dict[str, Any]]:
    return [{"sequence": s, "key": f"{s}:{n}"} for n, s in enumerate(sequences)]


@pytest.mark.parametrize(
    ("sequences", "limit", "page", "after"),
    [
        ((5, 6, 7), 2, (5, 6), 6),
        ((5, 6, 6, 6, 7), 2, (5, 6, 6, 6), 6),  # the event's three lines stay together
        ((6, 6, 7), 1, (6, 6), 6),
        ((5, 6), 2, (5, 6), None),
    ],
)
def test_a_history_page_never_splits_the_lines_of_one_event(sequences, limit, page, after):
    request = Request(APIRequestFactory().get("/api/v1/units/x/history/", {"limit": limit}))
    answer = history_page(request, iter(_lines(*sequences)), limit=limit)
    assert tuple(line["sequence"] for line in answer["results"]) == page
    if after is None:
        assert answer["next"] is None
    else:
        assert f"after={after}" in answer["next"]


@pytest.mark.parametrize(
    ("path", "query", "field", "code"),
    [
        ("forces", {"limit": 0}, "limit", "invalid.range"),
        ("forces", {"limit": "many"}, "limit", "invalid.integer"),
        ("forces", {"offset": -1}, "offset", "invalid.range"),
        ("units", {"limit": 1001}, "limit", "invalid.range"),
        ("troopers", {"limit": "x"}, "limit", "invalid.integer"),
        ("history", {"limit": 0}, "limit", "invalid.range"),
        ("history", {"after": "last"}, "after", "invalid.integer"),
    ],
)
def test_a_bad_page_is_refused_naming_its_parameter(table, umpire_api, path, query, field, code):
    url = {
        "forces": f"/api/v1/campaigns/{table['campaign'].id}/forces/",
        "units": f"/api/v1/forces/{table['forces']['3rd Platoon'].id}/units/",
        "troopers": f"/api/v1/forces/{table['forces']['3rd Platoon'].id}/troopers/",
        "history": f"/api/v1/units/{table['units']['Alpha Squad'].id}/history/",
    }[path]
    response = umpire_api.get(url, query)
    assert response.status_code == 400
    assert (response.json()["code"], response.json()["field"]) == (code, field)


# --- Filters --------------------------------------------------------------------------------------


def test_the_forces_filtered_by_side(table, umpire_api):
    url = f"/api/v1/campaigns/{table['campaign'].id}/forces/"
    blue = umpire_api.get(url, {"force_side": "Blue"}).json()
    assert (blue["count"], [f["name"] for f in blue["results"]]) == (
        2,
        ["Blue patrol", "3rd Platoon"],
    )
    assert [f["name"] for f in umpire_api.get(url, {"force_side": "Red"}).json()["results"]] == [
        "Red militia"
    ]
    assert umpire_api.get(url, {"force_side": "Green"}).json()["count"] == 0


def test_units_filtered_by_status(table, umpire_api):
    url = f"/api/v1/forces/{table['forces']['3rd Platoon'].id}/units/"

    def names(query) -> list[str]:
        response = umpire_api.get(url, query)
        assert response.status_code == 200, response.json()
        return [u["name"] for u in response.json()["results"]]

    assert names({"status": "safe_area"}) == ["2nd Squad"]
    assert names({"status": "in_the_line"}) == ["3rd Platoon", "Platoon HQ", "1st Squad"]
    assert len(names({"status": "in_the_line,safe_area"})) == 4
    assert len(names({"status": ["safe_area", "in_the_line"]})) == 4
    assert names({"status": "disbanded"}) == []
    refused = umpire_api.get(url, {"status": "on_leave"})
    assert refused.status_code == 400
    assert (refused.json()["code"], refused.json()["field"]) == ("invalid.choice", "status")


def test_troopers_filtered_by_status_now_and_as_of_before_the_battle(table, umpire_api):
    url = f"/api/v1/forces/{table['forces']['Blue patrol'].id}/troopers/"

    def names(query) -> list[str]:
        response = umpire_api.get(url, query)
        assert response.status_code == 200, response.json()
        return [t["name"] for t in response.json()["results"]]

    assert names({"status": "wounded"}) == ["Pte Baker"]
    assert names({"status": "dead"}) == ["Pte Dog"]
    assert names({"status": "fit,wounded"}) == ["Sgt Able", "Pte Baker", "Pte Charlie"]
    assert names({"status": "wounded", "as_of": table["raised"]}) == []
    assert len(names({"status": "fit", "as_of": table["raised"]})) == 4
    refused = umpire_api.get(url, {"status": "missing"})
    assert (refused.status_code, refused.json()["code"]) == (400, "invalid.choice")


# --- Visibility -----------------------------------------------------------------------------------


def test_a_player_lists_the_units_and_troopers_of_their_own_force_only(table):
    red, forces = table["red"], table["forces"]
    for force in ("Blue patrol", "3rd Platoon"):
        for what in ("units", "troopers"):
            refused = red.get(f"/api/v1/forces/{forces[force].id}/{what}/")
            assert (refused.status_code, refused.json()["code"]) == (403, "force.not_yours")
            # Asking about the past tells nothing more.
            then = red.get(f"/api/v1/forces/{forces[force].id}/{what}/", {"as_of": 1})
            assert (then.status_code, then.json()["code"]) == (403, "force.not_yours")
    own = red.get(f"/api/v1/forces/{forces['Red militia'].id}/troopers/").json()
    assert [t["name"] for t in own["results"]] == ["Boss Red", "Gun Red"]
    listed = red.get(f"/api/v1/campaigns/{table['campaign'].id}/forces/").json()["results"]
    assert {f["name"]: f["readable"] for f in listed} == {
        "Blue patrol": False,
        "Red militia": True,
        "3rd Platoon": False,
    }


def test_with_full_visibility_a_player_lists_every_forces_units(
    umpire, umpire_api, make_user, join, api_for
):
    campaign = campaign_for(umpire, options={"forces_visibility": "full"})
    for text in (BLUE, RED):
        assert (
            umpire_api.post(
                f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text}
            ).status_code
            == 201
        )
    forces = {f.name: f for f in Force.objects.filter(campaign_id=campaign.id)}
    player = make_user("red-player")
    join(campaign.id, player, "player", [forces["Red militia"].id])
    units = api_for(player).get(f"/api/v1/forces/{forces['Blue patrol'].id}/units/").json()
    assert [u["name"] for u in units["results"]] == ["Alpha Squad"]


def test_a_stranger_and_a_force_not_yet_raised_are_not_found(table, umpire_api, stranger, api_for):
    reserve = table["forces"]["3rd Platoon"]
    for what in ("units", "troopers"):
        unknown = api_for(stranger).get(f"/api/v1/forces/{reserve.id}/{what}/")
        assert (unknown.status_code, unknown.json()["code"]) == (404, "force.not_found")
        before = umpire_api.get(f"/api/v1/forces/{reserve.id}/{what}/", {"as_of": 1})
        assert (before.status_code, before.json()["code"]) == (404, "force.not_found")


# --- Answers as the schema describes them ---------------------------------------------------------


def test_the_answers_are_what_the_schema_describes(table, umpire_api, components, operations):
    forces, units = table["forces"], table["units"]
    reserve, alpha = forces["3rd Platoon"], units["Alpha Squad"]
    trooper = Trooper.objects.get(campaign_id=table["campaign"].id, name="Pte Baker")
    hq = umpire_api.get(f"/api/v1/units/{units['Platoon HQ'].id}/").json()
    campaign_id, vehicle_id = table["campaign"].id, hq["vehicles"][0]["id"]
    before = {"as_of": table["raised"]}
    reads = [
        ("/campaigns/{campaign_id}/forces/", f"/campaigns/{campaign_id}/forces/", {}),
        ("/forces/{force_id}/", f"/forces/{reserve.id}/", {}),
        ("/forces/{force_id}/", f"/forces/{reserve.id}/", before),
        ("/forces/{force_id}/units/", f"/forces/{reserve.id}/units/", {}),
        ("/forces/{force_id}/troopers/", f"/forces/{forces['Blue patrol'].id}/troopers/", {}),
        ("/units/{unit_id}/", f"/units/{alpha.id}/", {}),
        ("/units/{unit_id}/history/", f"/units/{alpha.id}/history/", {}),
        ("/troopers/{trooper_id}/", f"/troopers/{trooper.id}/", {}),
        ("/troopers/{trooper_id}/", f"/troopers/{trooper.id}/", before),
        ("/vehicles/{vehicle_id}/", f"/vehicles/{vehicle_id}/", {}),
        ("/units/{unit_id}/replacements/", f"/units/{units['3rd Platoon'].id}/replacements/", {}),
    ]
    for path, url, query in reads:
        response = umpire_api.get(f"/api/v1{url}", query)
        assert response.status_code == 200, (url, response.json())
        answer = _answer_component(operations, f"/api/v1{path}", "get", "200")
        conforms(components, answer, response.json())
    moved = umpire_api.post(
        f"/api/v1/units/{units['1st Squad'].id}/move/", {"to": "in_the_field", "reason": "rest"}
    )
    assert moved.status_code == 201, moved.json()
    path = "/api/v1/units/{unit_id}/move/"
    conforms(components, _answer_component(operations, path, "post", "201"), moved.json())


def test_each_adjustment_publishes_the_body_it_takes(operations, components):
    def body(path: str) -> dict[str, Any]:
        content = operations[path]["post"]["requestBody"]["content"]["application/json"]
        return components["schemas"][content["schema"]["$ref"].rpartition("/")[2]]

    assert set(body("/api/v1/units/{unit_id}/quality/")["required"]) == {"quality", "reason"}
    assert set(body("/api/v1/units/{unit_id}/regroup/")["required"]) == {"with_unit_id", "reason"}
    assert set(body("/api/v1/troopers/{trooper_id}/transfer/")["required"]) == {
        "to_unit_id",
        "reason",
    }
    move = body("/api/v1/units/{unit_id}/move/")
    assert move["required"] == ["to"]
    location = components["schemas"]["UnitLocation"]["enum"]
    assert location == ["in_the_line", "safe_area", "rear_area", "in_the_field"]
