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
    # The Green squad cannot drop (P.61), but the book rolls its die all the same: listed, moot.
    assert [(d["for"], d["die"], d["moot"]) for d in needs] == [(first, 6, False), (third, 4, True)]
    with_first = umpire_api.get(
        _url("2nd Platoon", "assign"), {"assignments": shares, "dice": "2"}
    ).json()
    assert with_first["complete"] is True
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


@pytest.mark.parametrize("keyed", [False, True])
def test_a_green_squads_die_rolled_as_the_book_says_is_accepted_and_recorded(
    umpire_api, campaign, keyed
):
    """P.60-61: the Green 3rd Squad (3 members: a d4) cannot drop, but the umpire who rolls its
    die as the book says may enter it: it is recorded as moot, not refused."""
    move(umpire_api, "1st Squad")
    move(umpire_api, "3rd Squad")
    assert request(umpire_api, "2nd Platoon", dice=[4]).status_code == 201
    first, third = (str(unit(n).id) for n in ("1st Squad", "3rd Squad"))
    dice = [{"face": 3, "for": third}, {"face": 8, "for": first}] if keyed else [8, 3]
    response = assign(umpire_api, "2nd Platoon", {"1st Squad": 1, "3rd Squad": 1}, dice=dice)
    assert response.status_code == 201, response.json()
    checks = {
        a["unit_id"]: a["check"] for a in response.json()["events"][0]["payload"]["assignments"]
    }
    assert [(d["die"], d["result"], d["moot"]) for d in checks[first]["dice"]] == [(8, 8, False)]
    assert [(d["die"], d["result"], d["moot"]) for d in checks[third]["dice"]] == [(4, 3, True)]
    assert detail(umpire_api, "3rd Squad")["quality"] == "green"
    assert replacements.history(umpire_api, "3rd Squad")[-1] == (
        "Day 0: 1 replacement assigned: quality check d4 3 cannot matter: Green units do not "
        "drop further (3 members). They arrive on day 1."
    )


def test_a_die_beyond_the_moot_ones_is_still_refused(umpire_api, campaign):
    move(umpire_api, "1st Squad")
    move(umpire_api, "3rd Squad")
    assert request(umpire_api, "2nd Platoon", dice=[4]).status_code == 201
    before = store.last_sequence(campaign.id)
    response = assign(umpire_api, "2nd Platoon", {"1st Squad": 1, "3rd Squad": 1}, dice=[8, 3, 2])
    assert response.status_code == 400, response.json()
    assert (response.json()["code"], response.json()["field"]) == ("dice.unused", "dice.1")
    assert store.last_sequence(campaign.id) == before
