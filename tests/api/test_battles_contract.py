"""The battles API as its schema publishes it: the lists that grow are pages (battles by offset
and filtered by state, a battle's log by sequence, its casualties and the hospital by offset),
each battle action is an operation of its own with the action's parameters and dice, and what
the API answers conforms to the schema."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator

from battles.actions import ACTIONS
from rosters.models import Trooper
from tests.battles.test_after_action import start
from tests.rosters.test_review import reviewed, setup  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db

ACTION = "/api/v1/battles/{battle_id}/actions/%s/"


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def _json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema: ``nullable`` is a null alternative, and an object
    with properties has those only (a key the API answers and the schema does not name is a
    failure, not a pass)."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _json_schema(value) for key, value in node.items() if key != "nullable"}
    if "properties" in node and "additionalProperties" not in node:
        out["additionalProperties"] = False
    if node.get("nullable") is True:
        if "type" in out:
            out["type"] = [out["type"], "null"]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


def validator_of(schema: dict[str, Any], body_schema: dict[str, Any]) -> jsonschema.Validator:
    components = {"schemas": _json_schema(schema["components"]["schemas"])}
    return jsonschema.Draft202012Validator({**_json_schema(body_schema), "components": components})


def _response_schema(schema, path: str, method: str, code: int) -> dict[str, Any]:
    response = schema["paths"][path][method]["responses"][str(code)]
    return response["content"]["application/json"]["schema"]


def request_schema(schema, path: str, method: str = "post") -> dict[str, Any]:
    return schema["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]


def conforms(schema, path: str, method: str, response) -> None:
    """The response's body is what the schema says the operation answers with its status."""
    body_schema = _response_schema(schema, path, method, response.status_code)
    validator_of(schema, body_schema).validate(response.json())


def _component(schema, ref: dict[str, Any]) -> dict[str, Any]:
    return schema["components"]["schemas"][ref["$ref"].rpartition("/")[2]]


def _plan(api, campaign, forces, name: str, day: int) -> str:
    response = api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": name,
            "day": day,
            "sides": [
                {"side": "Blue", "force_ids": [str(forces["Blue"].id)]},
                {"side": "Red", "force_ids": [str(forces["Red"].id)]},
            ],
        },
    )
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def test_the_campaigns_battles_are_a_page_filtered_by_state(setup, umpire_api, schema):  # noqa: F811
    campaign, forces, alpha, red = setup
    start(umpire_api, campaign, forces, [alpha, red], name="Hill 402", day=1)
    _plan(umpire_api, campaign, forces, "The ford", 2)
    _plan(umpire_api, campaign, forces, "The bridge", 3)
    url = f"/api/v1/campaigns/{campaign.id}/battles/"

    first = umpire_api.get(url, {"limit": 2})
    assert first.status_code == 200
    conforms(schema, "/api/v1/campaigns/{campaign_id}/battles/", "get", first)
    page = first.json()
    assert (page["count"], page["previous"]) == (3, None)
    second = umpire_api.get(page["next"]).json()
    assert second["next"] is None
    assert second["previous"] is not None
    names = [b["name"] for b in page["results"] + second["results"]]
    assert names == ["Hill 402", "The ford", "The bridge"]

    def named(query) -> list[str]:
        response = umpire_api.get(url, query)
        assert response.status_code == 200, response.json()
        return [b["name"] for b in response.json()["results"]]

    assert named({"state": "planned"}) == ["The ford", "The bridge"]
    assert named({"state": "in_progress"}) == ["Hill 402"]
    assert named({"state": ["in_progress", "planned"]}) == names
    assert named({"state": "planned,in_progress"}) == names
    assert named({"state": "resolved"}) == []

    for query, field in (({"state": "fighting"}, "state"), ({"limit": 0}, "limit")):
        refused = umpire_api.get(url, query)
        assert refused.status_code == 400
        assert refused.json()["field"] == field
    assert umpire_api.get(url, {"state": "fighting"}).json()["code"] == "invalid.choice"
    parameter = next(
        p
        for p in schema["paths"]["/api/v1/campaigns/{campaign_id}/battles/"]["get"]["parameters"]
        if p["name"] == "state"
    )
    assert set(parameter["schema"]["items"]["enum"]) == {
        "planned",
        "committed",
        "in_progress",
        "ended",
        "resolved",
    }


def test_the_battle_log_pages_by_sequence_and_never_splits_an_event(
    reviewed,  # noqa: F811
    umpire_api,
    schema,
):
    url = reviewed[4] + "log/"
    whole = umpire_api.get(url).json()
    assert whole["next"] is None
    # Two units were committed: one event, two lines.
    committed = [
        line for line in whole["results"] if line["event_type"] == "battles.UnitsCommitted"
    ]
    assert len(committed) == 2

    first = umpire_api.get(url, {"limit": 2})
    conforms(schema, "/api/v1/battles/{battle_id}/log/", "get", first)
    assert [line["event_type"] for line in first.json()["results"]] == [
        "battles.BattlePlanned",
        "battles.UnitsCommitted",
        "battles.UnitsCommitted",
    ]
    # A page of one line holds the one line of the plan; the next, both lines of the commit.
    one = umpire_api.get(url, {"limit": 1}).json()
    assert [line["event_type"] for line in one["results"]] == ["battles.BattlePlanned"]
    two = umpire_api.get(one["next"]).json()["results"]
    assert [line["key"] for line in two] == [line["key"] for line in committed]
    walked, page = [], first.json()
    while True:
        walked += page["results"]
        if page["next"] is None:
            break
        page = umpire_api.get(page["next"]).json()
    assert walked == whole["results"]
    after = first.json()["results"][-1]["sequence"]
    rest = umpire_api.get(url, {"after": after}).json()["results"]
    assert rest == whole["results"][3:]
    assert umpire_api.get(url, {"after": -1}).json()["field"] == "after"


def test_a_battles_casualties_and_the_hospital_are_pages(reviewed, umpire_api, schema):  # noqa: F811
    campaign, _, _, _, url = reviewed
    casualties = umpire_api.get(f"{url}casualties/", {"limit": 2})
    conforms(schema, "/api/v1/battles/{battle_id}/casualties/", "get", casualties)
    page = casualties.json()
    assert (page["count"], len(page["results"]), page["name"]) == (5, 2, "Hill 402")
    assert [s["side"] for s in page["sides"]] == ["Blue", "Red"]
    named = page["results"]
    while page["next"] is not None:
        page = umpire_api.get(page["next"]).json()
        named += page["results"]
    assert sorted((c["side"], c["name"], c["status"]) for c in named) == [
        ("Blue", "Pte Baker", "stabilised"),
        ("Blue", "Pte Charlie", "wounded"),
        ("Blue", "Pte Dog", "dead"),
        ("Red", "Boss Red", "dead"),
        ("Red", "Gun Red", "wounded"),
    ]
    assert umpire_api.get(f"{url}casualties/", {"offset": -1}).json()["field"] == "offset"

    hospital_url = f"/api/v1/campaigns/{campaign.id}/hospital/"
    hospital = umpire_api.get(hospital_url, {"limit": 2})
    conforms(schema, "/api/v1/campaigns/{campaign_id}/hospital/", "get", hospital)
    first = hospital.json()
    rest = umpire_api.get(first["next"]).json()
    assert first["count"] == 3
    assert [h["name"] for h in first["results"] + rest["results"]] == [
        "Gun Red",
        "Pte Baker",
        "Pte Charlie",
    ]
    assert umpire_api.get(hospital_url, {"limit": "many"}).json()["field"] == "limit"


def test_each_battle_action_is_an_operation_with_its_own_parameters(schema):
    paths = schema["paths"]
    assert "/api/v1/battles/{battle_id}/actions/{action}/" not in paths
    for _, action in ACTIONS:
        assert {"get", "post"} <= set(paths[ACTION % action]), action

    casualties = _component(schema, request_schema(schema, ACTION % "casualties"))
    assert set(casualties["properties"]) == {
        "unit_id",
        "mode",
        "hits",
        "impact_die",
        "cover",
        "counting_order",
        "casualties",
        "hidden",
        "expected_version",
        "dice",
    }
    assert sorted(casualties["required"]) == ["mode", "unit_id"]
    assert casualties["additionalProperties"] is False
    named = casualties["properties"]["casualties"]["items"]
    assert set(_component(schema, named)["properties"]) == {"trooper_id", "result"}
    mode = _component(schema, casualties["properties"]["mode"]["allOf"][0])
    assert mode["enum"] == ["allocate", "named"]

    treatment = _component(schema, request_schema(schema, ACTION % "medical_treatment"))
    assert set(treatment["properties"]) == {
        "unit_id",
        "medical_unit_id",
        "trooper_ids",
        "in_cover",
        "hidden",
        "expected_version",
        "dice",
    }
    assert treatment["required"] == ["unit_id"]
    assert treatment["properties"]["trooper_ids"]["nullable"] is True

    post = paths[ACTION % "medical_treatment"]["post"]
    assert post["responses"]["201"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/EventsAppended"
    }
    assert post["responses"]["202"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Job"
    }
    prompt = paths[ACTION % "medical_treatment"]["get"]
    assert prompt["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/DicePrompt"
    }
    query = {p["name"]: p for p in prompt["parameters"] if p["in"] == "query"}
    assert set(query) == {"unit_id", "medical_unit_id", "trooper_ids", "in_cover", "dice"}
    assert query["unit_id"]["required"] is True
    assert "required" not in query["medical_unit_id"]


def test_the_lifecycle_steps_each_have_their_body(schema):
    def body(step: str) -> dict[str, Any]:
        return _component(schema, request_schema(schema, f"/api/v1/battles/{{battle_id}}/{step}/"))

    assert body("commit")["required"] == ["unit_ids"]
    assert body("end")["required"] == ["winner"]
    assert (
        set(body("start")["properties"]) == set(body("turn")["properties"]) == {"expected_version"}
    )
    start_body = schema["paths"]["/api/v1/battles/{battle_id}/start/"]["post"]["requestBody"]
    assert "required" not in start_body  # an empty POST starts the battle
    plan = _component(schema, request_schema(schema, "/api/v1/campaigns/{campaign_id}/battles/"))
    side = _component(schema, plan["properties"]["sides"]["items"])
    assert {"side", "force_ids", "mission_motivation", "casevac"} <= set(side["properties"])


def test_an_action_body_and_the_answers_conform_to_the_schema(
    setup,  # noqa: F811
    umpire_api,
    api_for,
    make_user,
    join,
    schema,
):
    campaign, forces, alpha, red = setup
    url = start(umpire_api, campaign, forces, [alpha, red], name="Hill 402", day=1)
    battle_id = url.rstrip("/").rpartition("/")[2]
    names = {t.name: str(t.id) for t in Trooper.objects.filter(campaign_id=campaign.id)}
    body_schema = request_schema(schema, ACTION % "casualties")
    validator = validator_of(schema, body_schema)

    named: dict[str, Any] = {
        "unit_id": str(alpha.id),
        "mode": "named",
        "casualties": [{"trooper_id": names["Pte Baker"], "result": "wounded"}],
        "dice": [],
    }
    validator.validate(named)
    done = umpire_api.post(f"{url}actions/casualties/", named)
    assert done.status_code == 201, done.json()
    conforms(schema, ACTION % "casualties", "post", done)

    keyed: dict[str, Any] = {"unit_id": str(alpha.id), "dice": [{"face": 4, "for": str(alpha.id)}]}
    validator_of(schema, request_schema(schema, ACTION % "medical_treatment")).validate(keyed)
    prompt = umpire_api.get(f"{url}actions/medical_treatment/", {"unit_id": str(alpha.id)})
    assert prompt.status_code == 200, prompt.json()
    conforms(schema, ACTION % "medical_treatment", "get", prompt)
    assert [(d["die"], d["for"]) for d in prompt.json()["dice"]] == [(6, str(alpha.id))]
    treated = umpire_api.post(f"{url}actions/medical_treatment/", keyed)
    assert treated.status_code == 201, treated.json()

    # What the schema refuses, the server refuses too.
    wrong: dict[str, Any] = {"unit_id": str(alpha.id), "mode": "sniped", "dice": []}
    assert not validator.is_valid(wrong)
    assert umpire_api.post(f"{url}actions/casualties/", wrong).status_code == 400
    assert not validator.is_valid({**named, "dice": [4, {"face": 2}]})  # faces, or keyed
    assert not validator.is_valid({**named, "dice": [0]})

    # Left to the server's dice: 202 and the job.
    reaction = {"unit_id": str(red.id), "threat_level": 1}
    rolled = umpire_api.post(f"{url}actions/reaction_test/", reaction)
    assert rolled.status_code == 202, rolled.json()
    conforms(schema, ACTION % "reaction_test", "post", rolled)

    detail = "/api/v1/battles/{battle_id}/"
    conforms(schema, detail, "get", umpire_api.get(url))
    player = make_user("blue-player")
    join(campaign.id, player, "player", [forces["Blue"].id])
    seen = api_for(player).get(url)
    conforms(schema, detail, "get", seen)
    outline = [p for p in seen.json()["participants"] if p["sight"] == "outline"]
    assert [(p["side"], p["unit_id"]) for p in outline] == [("Red", None)]
    log = api_for(player).get(f"{url}log/")
    conforms(schema, "/api/v1/battles/{battle_id}/log/", "get", log)

    ended = umpire_api.post(f"{url}end/", {"winner": "Blue"})
    conforms(schema, "/api/v1/battles/{battle_id}/end/", "post", ended)
    assert ended.json()["id"] == battle_id
    prompt = umpire_api.get(f"{url}after-action/")
    conforms(schema, "/api/v1/battles/{battle_id}/after-action/", "get", prompt)
