"""The dice prompt and dice keyed by the unit they are for, over HTTP, for the replacement roll
and the assignment's quality checks (SG2 P.60-61; issue 11, "dice that go where the umpire
means")."""

from __future__ import annotations

import pytest

from eventlog import store
from tests.rosters import test_replacements as replacements
from tests.rosters.test_replacements import (
    assign,
    detail,
    fight_the_book_battle,
    move,
    request,
    unit,
)

campaign = replacements.campaign  # the fixture, shared with the replacement tests

pytestmark = pytest.mark.django_db


def _url(platoon: str, what: str) -> str:
    return f"/api/v1/units/{unit(platoon).id}/replacements/{what}/"


def test_the_replacement_roll_prompt_names_the_platoons_die(umpire_api, campaign):
    """P.60: one die per platoon; the option default ``replacement_die`` is a D8."""
    move(umpire_api, "1st Squad")
    before = store.last_sequence(campaign.id)
    response = umpire_api.get(_url("2nd Platoon", "request"))
    assert response.status_code == 200, response.json()
    (die,) = response.json()["dice"]
    assert (die["die"], die["for"], die["face"]) == (8, str(unit("2nd Platoon").id), None)
    assert store.last_sequence(campaign.id) == before
    keyed = request(umpire_api, "2nd Platoon", dice=[{"face": 5, "for": die["for"]}])
    assert keyed.status_code == 201, keyed.json()
    assert keyed.json()["events"][0]["payload"]["available"] == 5


@pytest.mark.parametrize("keyed", [False, True])
def test_assignment_dice_keyed_by_squad_give_the_ordered_forms_checks(umpire_api, campaign, keyed):
    """P.60's Veteran squad gets 2 men (6 members: a D6, 2 drops it to Regular) and the Green
    3rd Squad 1 man. The prompt lists each receiving squad's check die in the order of the
    assignments; the same faces keyed by squad and entered the other way round land on the same
    squads."""
    fight_the_book_battle(umpire_api, campaign)
    move(umpire_api, "1st Squad")
    move(umpire_api, "3rd Squad")
    assert request(umpire_api, "2nd Platoon", dice=[5]).status_code == 201
    first, third = (str(unit(n).id) for n in ("1st Squad", "3rd Squad"))
    shares = f'[{{"unit_id": "{first}", "count": 2}}, {{"unit_id": "{third}", "count": 1}}]'
    prompt = umpire_api.get(_url("2nd Platoon", "assign"), {"assignments": shares})
    assert prompt.status_code == 200, prompt.json()
    needs = prompt.json()["dice"]
    assert needs[0]["for"] == first
    assert needs[0]["die"] == 6
    assert [d["for"] for d in needs] in ([first], [first, third])
    faces = {first: 2, third: 4}
    dice = (
        [{"face": faces[d["for"]], "for": d["for"]} for d in reversed(needs)]
        if keyed
        else [faces[d["for"]] for d in needs]
    )
    response = assign(umpire_api, "2nd Platoon", {"1st Squad": 2, "3rd Squad": 1}, dice=dice)
    assert response.status_code == 201, response.json()
    checks = {
        a["unit_id"]: a["check"] for a in response.json()["events"][0]["payload"]["assignments"]
    }
    assert checks[first]["dropped"] is True
    assert detail(umpire_api, "1st Squad")["quality"] == "regular"
    assert detail(umpire_api, "3rd Squad")["quality"] == "green"
