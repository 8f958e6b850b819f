"""Arbitrary JSON thrown at every write endpoint: a 2xx or a JSON 4xx, never a 5xx, and nothing
appended to the log when the request is refused.

The endpoints come from the OpenAPI schema, so a new one is covered the day it is added. Bodies
are any JSON value, and objects keyed by the endpoint's own field names with any values, so the
requests reach past the parser into validation, the rules and the database. The campaign they
hit has forces, a battle being fought and a planned one; the requests change it as they go,
which is the point: a later request meets whatever state an earlier one left.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.tokens import token_issue
from battles.actions import ACTIONS
from eventlog.models import Event
from rosters.models import Force, Trooper, Unit
from tests.battles.test_after_action import BLUE, RED
from tests.factories import campaign_for
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db

WRITES = ("post", "put", "patch", "delete")
# Names an action could have in a path: unknown ones must be a 404, never a 500.
ACTION_LETTERS = "abcdefghijklmnopqrstuvwxyz_-0123456789"


def _write_operations() -> list[tuple[str, str, tuple[str, ...]]]:
    """Every (method, path, body field names) the API accepts writes on."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema.get("components", {}).get("schemas", {})
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method not in WRITES:
                continue
            fields: set[str] = set()
            content = operation.get("requestBody", {}).get("content", {})
            for media in content.values():
                ref = media.get("schema", {}).get("$ref", "")
                body = components.get(ref.rpartition("/")[2], media.get("schema", {}))
                fields |= set(body.get("properties", {}))
            found.append((method, path, tuple(sorted(fields | {"dice", "reason"}))))
    return found


OPERATIONS = _write_operations()

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.uuids().map(str)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


def shaped_bodies(fields: tuple[str, ...]) -> st.SearchStrategy[Any]:
    keys = st.sampled_from(fields) | st.text(max_size=8)
    return json_values | st.dictionaries(keys, json_values, max_size=6)


@pytest.fixture
def world(umpire, umpire_api, settings) -> dict[str, str]:
    """A campaign with two forces, a battle under way and one planned, a webhook with its
    deliveries (to a port where nothing listens), and a branch: the ids paths need."""
    settings.MUSTER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    campaign = campaign_for(umpire, name="Fuzzed")
    webhook = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/webhooks/", {"url": "http://127.0.0.1:9/hook"}
    )
    assert webhook.status_code == 201, webhook.json()
    for text in (BLUE, RED):
        response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    sides = [{"side": side, "force_ids": [str(force.id)]} for side, force in forces.items()]
    battles = []
    for name in ("Fought", "Planned"):
        plan = umpire_api.post(
            f"/api/v1/campaigns/{campaign.id}/battles/", {"name": name, "day": 1, "sides": sides}
        )
        assert plan.status_code == 201, plan.json()
        battles.append(plan.json()["id"])
    units = list(Unit.objects.filter(campaign_id=campaign.id))
    fought = f"/api/v1/battles/{battles[0]}/"
    umpire_api.post(f"{fought}commit/", {"unit_ids": [str(u.id) for u in units]})
    umpire_api.post(f"{fought}start/")
    branch = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/branches/",
        {"point": {"before_battle": battles[0]}, "options": {"replacement_die": 10}},
    )
    assert branch.status_code == 202, branch.json()
    return {
        "campaign_id": str(campaign.id),
        "battle_id": battles[0],
        "force_id": str(forces["Blue"].id),
        "unit_id": str(units[0].id),
        "trooper_id": str(Trooper.objects.filter(campaign_id=campaign.id)[0].id),
        "user_id": str(umpire.pk),
        # A spare token of the umpire's (not the one the requests use) and an open invitation.
        "token_id": str(token_issue(user=umpire, name="fuzzed").token.id),
        "invitation_id": umpire_api.post(
            f"/api/v1/campaigns/{campaign.id}/invitations/",
            {"username": "fuzzed-invitee", "role": "observer"},
        ).json()["id"],
        "webhook_id": webhook.json()["id"],
        "branch_id": branch.json()["id"],
        "delivery_id": str(
            Delivery.objects.filter(webhook_id=webhook.json()["id"]).values_list("id", flat=True)[0]
        ),
    }


def _path(template: str, world: dict[str, str], action: str) -> str:
    path = template.replace("{action}", action)
    for name, value in world.items():
        path = path.replace("{" + name + "}", value)
    assert "{" not in path, f"no value for a parameter of {template}"
    return path


@pytest.mark.parametrize(
    ("method", "template", "fields"), OPERATIONS, ids=[f"{m} {p}" for m, p, _ in OPERATIONS]
)
def test_arbitrary_json_gets_a_2xx_or_a_json_4xx_and_refusals_append_nothing(
    umpire_api, world, method, template, fields
):
    actions = sorted({name for _, name in ACTIONS})

    @settings(
        max_examples=25,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(
        body=shaped_bodies(fields),
        action=st.sampled_from(actions) | st.text(ACTION_LETTERS, min_size=1, max_size=12),
    )
    def throw(body: Any, action: str) -> None:
        path = _path(template, world, action)
        before = Event.objects.count()
        response = umpire_api.send(method, path, json.dumps(body))
        assert response.status_code < 500, (path, body, response.content[:500])
        if response.status_code == 204:
            return
        assert response["Content-Type"].startswith("application/json"), (path, body)
        answer = response.json()
        if response.status_code >= 400:
            assert isinstance(answer.get("code"), str), (path, body, answer)
            assert Event.objects.count() == before, (path, body, answer)

    throw()
