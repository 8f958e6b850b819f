"""Replacements between battles through HTTP: one die per platoon between its battles, one
quality check per squad for all the men it receives, and the quality rise before replacements
(SG2 P.60 IMPROVING TROOP QUALITY and REPLACEMENT TROOPS).

The state is built with real commands, as in ``test_replacements``: roster files, battles
planned, fought, ended and resolved after the action, moves out of the line, the calendar.
"""

from __future__ import annotations

import pytest

from eventlog import store
from tests.battles.helpers import assert_rebuild_keeps_rows
from tests.rosters.battles import fight
from tests.rosters.test_replacements import (
    advance,
    assign,
    detail,
    fight_the_book_battle,
    history,
    move,
    refused,
    request,
    setup_campaign,
    unit,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(umpire, umpire_api):
    return setup_campaign(umpire, umpire_api)


# --- Item 2: the die is rolled once per platoon between battles (P.60) ---------------------------


def test_the_replacement_die_is_rolled_once_between_battles_not_once_a_day_p60(
    umpire_api, campaign
):
    """P.60: "each player is allowed to roll one die for each PLATOON" between battles. A new
    campaign day is not a new battle: the second roll waits until the platoon has fought."""
    move(umpire_api, "1st Squad")
    assert request(umpire_api, "2nd Platoon", dice=[5]).status_code == 201
    advance(umpire_api, campaign)
    before = store.last_sequence(campaign.id)
    response = request(umpire_api, "2nd Platoon", dice=[8])
    refused(response, 409, "replacements.already_rolled", "unit")
    assert "no battle" in response.json()["message"]
    assert store.last_sequence(campaign.id) == before
    advance(umpire_api, campaign, 3)
    before = store.last_sequence(campaign.id)
    refused(request(umpire_api, "2nd Platoon"), 409, "replacements.already_rolled", "unit")
    assert store.last_sequence(campaign.id) == before

    # Another platoon's battle is not one of 2nd Platoon's.
    fight(umpire_api, campaign, "Lone Squad")
    refused(request(umpire_api, "2nd Platoon", dice=[8]), 409, "replacements.already_rolled")

    # Once one of its squads has fought a battle, the platoon rolls again.
    fight(umpire_api, campaign, "3rd Squad")
    rolled = request(umpire_api, "2nd Platoon", dice=[2])
    assert rolled.status_code == 201, rolled.json()
    assert rolled.json()["events"][0]["payload"]["lapsed"] == 5
    refused(request(umpire_api, "2nd Platoon", dice=[8]), 409, "replacements.already_rolled")


# --- Item 3: one quality check per squad for all its new men (P.60) -----------------------------


def test_two_single_man_assignments_drop_the_book_squad_once_p60(umpire_api, campaign):
    """P.60's Veteran squad (six members, a D6): its first man's check rolls 1 and drops it to
    Regular. The second man is one more of the same replacements: the one check already made
    counts him, no die is rolled, and the squad stays Regular (not Green)."""
    fight_the_book_battle(umpire_api, campaign)
    move(umpire_api, "1st Squad")
    request(umpire_api, "2nd Platoon", dice=[5])
    first = assign(umpire_api, "2nd Platoon", {"1st Squad": 1}, dice=[1])
    assert first.status_code == 201, first.json()
    assert detail(umpire_api, "1st Squad")["quality"] == "regular"

    second = assign(umpire_api, "2nd Platoon", {"1st Squad": 1}, dice=[])
    assert second.status_code == 201, second.json()
    (event,) = second.json()["events"]
    check = event["payload"]["assignments"][0]["check"]
    assert (check["quality_before"], check["quality_after"], check["dropped"]) == (
        "regular",
        "regular",
        False,
    )
    assert (check["counted"], check["roll"], check["die"], check["dice"]) == (2, 1, 6, [])
    assert event["payload"]["dice"] == []
    assert detail(umpire_api, "1st Squad")["quality"] == "regular"
    assert history(umpire_api, "1st Squad")[-1] == (
        "Day 0: 1 replacement assigned: the quality check already made counts him: d6 1 "
        "with 2 replacements, already dropped: stays Regular (6 members, 1 back from injury). "
        "They arrive on day 1."
    )
    # A third man with a die rolled at the table for him, as the umpire did: whether
    # the die is refused or recorded, it cannot drop the squad a second time.
    assign(umpire_api, "2nd Platoon", {"1st Squad": 1}, dice=[1])
    assert detail(umpire_api, "1st Squad")["quality"] == "regular"


@pytest.mark.parametrize(("face", "quality"), [(2, "regular"), (3, "veteran")])
def test_split_assignments_give_the_book_example_outcome_p60(umpire_api, campaign, face, quality):
    """P.60: two replacements for the six-man Veteran squad drop it on a D6 of 1-2. Given one
    at a time, the first check's score is compared with both men: 2 keeps it Veteran for one
    man and drops it to Regular with the second; 3 keeps it Veteran."""
    fight_the_book_battle(umpire_api, campaign)
    move(umpire_api, "1st Squad")
    request(umpire_api, "2nd Platoon", dice=[5])
    assert assign(umpire_api, "2nd Platoon", {"1st Squad": 1}, dice=[face]).status_code == 201
    assert detail(umpire_api, "1st Squad")["quality"] == "veteran"
    advance(umpire_api, campaign)  # the first man arrives; he is no existing member
    response = assign(umpire_api, "2nd Platoon", {"1st Squad": 1}, dice=[])
    assert response.status_code == 201, response.json()
    assert detail(umpire_api, "1st Squad")["quality"] == quality
    outcome = "Veteran to Regular" if quality == "regular" else "stays Veteran"
    assert (
        f"the quality check already made counts him: d6 {face} with 2 replacements: {outcome}"
        in history(umpire_api, "1st Squad")[-1]
    )


def test_a_squad_that_fought_again_takes_a_new_check(umpire_api, campaign):
    """The one check covers the men a squad receives between two of its battles; after its
    next battle, new men are checked afresh with a new die."""
    move(umpire_api, "1st Squad")
    request(umpire_api, "2nd Platoon", dice=[8])
    assert assign(umpire_api, "2nd Platoon", {"1st Squad": 1}, dice=[7]).status_code == 201
    move(umpire_api, "1st Squad", "in_the_line")
    fight(umpire_api, campaign, "1st Squad")
    move(umpire_api, "1st Squad")
    response = assign(umpire_api, "2nd Platoon", {"1st Squad": 1}, dice=[1])
    assert response.status_code == 201, response.json()
    check = response.json()["events"][0]["payload"]["assignments"][0]["check"]
    assert (check["counted"], check["roll"], check["dropped"]) == (1, 1, True)


# --- Item 4: the quality rise before replacements (P.60) ----------------------------------------


def test_replacements_wait_for_the_after_action_of_the_squads_battle_p60(umpire_api, campaign):
    """P.60: a rise "should be taken into account BEFORE allocating any replacement personnel".
    A squad whose battle has ended but is not resolved after the action gets no replacements;
    once it is, they are assigned."""
    url = fight(umpire_api, campaign, "1st Squad", resolve=False)
    move(umpire_api, "1st Squad")
    assert request(umpire_api, "2nd Platoon", dice=[4]).status_code == 201
    before = store.last_sequence(campaign.id)
    response = assign(umpire_api, "2nd Platoon", {"1st Squad": 1}, dice=[4])
    refused(response, 409, "campaign.order", "assignments.0.unit_id")
    assert "after-action" in response.json()["message"]
    assert store.last_sequence(campaign.id) == before

    assert umpire_api.post(f"{url}after-action/", {"dice": []}).status_code == 201
    assert assign(umpire_api, "2nd Platoon", {"1st Squad": 1}, dice=[4]).status_code == 201


@pytest.mark.parametrize(("face", "quality", "points"), [(1, "green", 0), (2, "regular", 1)])
def test_a_rise_undone_by_replacements_uses_the_points_up_p60(
    umpire, umpire_api, face, quality, points
):
    """P.60: if the influx of new troops drops a unit that has just risen, "the improvement
    points are considered used up anyway". With ``subtract_threshold`` the Green squad's win
    (3 points against a threshold of 2) leaves it Regular with 1 point; a replacement that
    drops it back to Green takes that point too. (Three members: a D4, dropping on 1.)"""
    campaign = setup_campaign(
        umpire_api=umpire_api,
        umpire=umpire,
        quality_points_on_rise="subtract_threshold",
        quality_threshold_green_regular=2,
    )
    fight(umpire_api, campaign, "3rd Squad")
    assert (detail(umpire_api, "3rd Squad")["quality"], unit("3rd Squad").experience_points) == (
        "regular",
        1,
    )
    move(umpire_api, "3rd Squad")
    request(umpire_api, "2nd Platoon", dice=[4])
    response = assign(umpire_api, "2nd Platoon", {"3rd Squad": 1}, dice=[face])
    assert response.status_code == 201, response.json()
    squad = detail(umpire_api, "3rd Squad")
    assert (squad["quality"], squad["experience_points"]) == (quality, points)
    if points == 0:
        assert "improvement points used up (1 to 0)" in history(umpire_api, "3rd Squad")[-1]
    assert_rebuild_keeps_rows()
