"""Replacement troops between battles through HTTP (SG2 P.60-61 REPLACEMENT TROOPS).

The state is built with real commands: a roster file, a battle in which troopers fall and one is
treated back into action, the moves out of the line, and the calendar.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

from eventlog import projections, store
from rosters.models import Force, Trooper, Unit
from tests.factories import campaign_for
from tests.rosters.battles import fight

pytestmark = pytest.mark.django_db

BLUE = """\
name: 2nd Platoon
side: Blue
units:
  - name: 2nd Platoon
    kind: platoon
    units:
      - name: 1st Squad
        kind: squad
        quality: veteran
        leadership: 2
        toe_strength: 8
        troopers:
          - {name: Sgt Able, role: leader, weapon: ACR, armour: light, armour_die: 6}
          - {name: Cpl Baker, role: second_in_command, weapon: ACR, armour: light, armour_die: 6}
          - {name: Pte Charlie, role: support_weapon, weapon: SAW, armour: light, armour_die: 6}
          - {name: Pte Dog, weapon: ACR, armour: light, armour_die: 6}
          - {name: Pte Easy, weapon: ACR, armour: light, armour_die: 6}
          - {name: Pte Fox, weapon: ACR, armour: light, armour_die: 6}
          - {name: Pte George, weapon: ACR, armour: light, armour_die: 6}
          - {name: Pte How, weapon: ACR, armour: light, armour_die: 6}
      - name: 2nd Squad
        kind: squad
        quality: elite
        leadership: 1
        toe_strength: 6
        troopers:
          - {name: Sgt Item, role: leader}
          - {name: Pte Jig}
      - name: 3rd Squad
        kind: squad
        quality: green
        leadership: 3
        toe_strength: 4
        troopers:
          - {name: Cpl King, role: leader}
          - {name: Pte Love}
          - {name: Pte Mike}
  - name: 3rd Platoon
    kind: platoon
    units:
      - name: Lone Squad
        kind: squad
        quality: regular
        leadership: 2
        troopers:
          - {name: Cpl Nan, role: leader}
"""

RED = """\
name: Red patrol
side: Red
units:
  - name: Red Squad
    kind: squad
    quality: green
    leadership: 3
    troopers:
      - {name: Boss Red, role: leader}
      - {name: Rifle Red}
"""


def setup_campaign(umpire, umpire_api, **options):
    campaign = campaign_for(umpire, name="Replacements", options=options or None)
    for text in (BLUE, RED):
        response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    return campaign


@pytest.fixture
def campaign(umpire, umpire_api):
    return setup_campaign(umpire, umpire_api)


def unit(name: str) -> Unit:
    return Unit.objects.get(name=name)


def move(api, name: str, to: str = "safe_area") -> None:
    response = api.post(f"/api/v1/units/{unit(name).id}/move/", {"to": to, "reason": "refit"})
    assert response.status_code == 201, response.json()


def request(api, platoon: str, dice=None):
    body = {} if dice is None else {"dice": dice}
    return api.post(f"/api/v1/units/{unit(platoon).id}/replacements/request/", body)


def assign(api, platoon: str, shares: dict[str, int], dice=None):
    body = {"assignments": [{"unit_id": str(unit(n).id), "count": c} for n, c in shares.items()]}
    if dice is not None:
        body["dice"] = dice
    return api.post(f"/api/v1/units/{unit(platoon).id}/replacements/assign/", body)


def advance(api, campaign, days: int = 1) -> None:
    response = api.post(f"/api/v1/campaigns/{campaign.id}/calendar/", {"days": days})
    assert response.status_code in (200, 201), response.json()


def history(api, name: str) -> list[str]:
    response = api.get(f"/api/v1/units/{unit(name).id}/history/")
    return [line["summary"] for line in response.json()["results"]]


def detail(api, name: str) -> dict:
    return api.get(f"/api/v1/units/{unit(name).id}/").json()


def fight_the_book_battle(api, campaign) -> None:
    """SG2 P.60's example: the 8-man Veteran squad loses 3 men, and 1 of them recovers.

    Two are killed and one wounded (named by the umpire); the wounded man is treated in a
    Reorganise action, D6 6 with no medic: back in action (P.39). The battle is then resolved
    after the action (no dice due), as P.60 wants before any replacements are allocated.
    """
    blue, red = (Force.objects.get(campaign_id=campaign.id, side=s) for s in ("Blue", "Red"))
    plan = api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Ridge 417",
            "day": 0,
            "sides": [
                {"side": "Blue", "force_ids": [str(blue.id)]},
                {"side": "Red", "force_ids": [str(red.id)]},
            ],
        },
    )
    assert plan.status_code == 201, plan.json()
    url = f"/api/v1/battles/{plan.json()['id']}/"
    committed = api.post(
        f"{url}commit/", {"unit_ids": [str(unit("1st Squad").id), str(unit("Red Squad").id)]}
    )
    assert committed.status_code == 200, committed.json()
    assert api.post(f"{url}start/").status_code == 200
    men = {t.name: t for t in Trooper.objects.filter(unit_id=unit("1st Squad").id)}
    hit = api.post(
        f"{url}actions/casualties/",
        {
            "unit_id": str(unit("1st Squad").id),
            "mode": "named",
            "casualties": [
                {"trooper_id": str(men["Pte George"].id), "result": "killed"},
                {"trooper_id": str(men["Pte How"].id), "result": "killed"},
                {"trooper_id": str(men["Pte Fox"].id), "result": "wounded"},
            ],
            "dice": [],
        },
    )
    assert hit.status_code == 201, hit.json()
    treated = api.post(
        f"{url}actions/medical_treatment/", {"unit_id": str(unit("1st Squad").id), "dice": [6]}
    )
    assert treated.status_code == 201, treated.json()
    ended = api.post(f"{url}end/", {"winner": "Blue"})
    assert ended.status_code == 200, ended.json()
    resolved = api.post(f"{url}after-action/", {"dice": []})
    assert resolved.status_code == 201, resolved.json()


@pytest.mark.parametrize(
    ("face", "quality", "line"),
    [
        (2, "regular", "quality check d6 2 with 2 replacements: Veteran to Regular"),
        (1, "regular", "quality check d6 1 with 2 replacements: Veteran to Regular"),
        (3, "veteran", "quality check d6 3 with 2 replacements: stays Veteran"),
        (6, "veteran", "quality check d6 6 with 2 replacements: stays Veteran"),
    ],
)
def test_book_example_veteran_squad_with_two_replacements_p60(
    umpire_api, campaign, face, quality, line
):
    """P.60: a Veteran unit of TO&E 8 lost 3 men, 1 of whom recovered: 6 members roll a D6
    against 2 replacements; 1-2 drops it to Regular, 3-6 keeps it Veteran."""
    fight_the_book_battle(umpire_api, campaign)
    statuses = sorted(t.status for t in Trooper.objects.filter(unit_id=unit("1st Squad").id))
    assert statuses == ["dead", "dead"] + ["fit"] * 6
    assert Trooper.objects.get(name="Pte Fox").wounds == 1
    move(umpire_api, "1st Squad")

    rolled = request(umpire_api, "2nd Platoon", dice=[5])  # the platoon's D8 (option default)
    assert rolled.status_code == 201, rolled.json()
    (event,) = rolled.json()["events"]
    assert event["type"] == "rosters.ReplacementsRolled"
    assert {k: event["payload"][k] for k in ("die", "roll", "available")} == {
        "die": 8,
        "roll": 5,
        "available": 5,
    }
    assert [(d["die"], d["result"], d["source"]) for d in event["payload"]["dice"]] == [
        (8, 5, "table")
    ]

    before = store.last_sequence(campaign.id)
    response = assign(umpire_api, "2nd Platoon", {"1st Squad": 2}, dice=[face])
    assert response.status_code == 201, response.json()
    assert store.last_sequence(campaign.id) == before + 1
    (event,) = response.json()["events"]
    check = event["payload"]["assignments"][0]["check"]
    assert (check["existing_members"], check["returned_from_injury"], check["die"]) == (5, 1, 6)
    assert check["dropped"] is (quality == "regular")
    assert [(d["die"], d["result"]) for d in event["payload"]["dice"]] == [(6, face)]

    # The drop is at once; the men are not there until the next day.
    squad = detail(umpire_api, "1st Squad")
    assert (squad["quality"], squad["strength"]) == (quality, 6)
    assert history(umpire_api, "1st Squad")[-1] == (
        f"Day 0: 2 replacements assigned: {line} (6 members, 1 back from injury). "
        "They arrive on day 1."
    )
    ledger = umpire_api.get(f"/api/v1/units/{unit('2nd Platoon').id}/replacements/").json()
    assert (ledger["assigned"], ledger["left"]) == (2, 3)
    assert [(p["unit"], p["count"], p["arrives_on_day"]) for p in ledger["on_the_way"]] == [
        ("1st Squad", 2, 1)
    ]

    advance(umpire_api, campaign)
    squad = detail(umpire_api, "1st Squad")
    assert (squad["quality"], squad["strength"]) == (quality, 8)
    new = Trooper.objects.filter(unit_id=unit("1st Squad").id, name__startswith="Replacement")
    assert [(t.name, t.role, t.weapon, t.armour, t.armour_die, t.status) for t in new] == [
        ("Replacement 1 (1st Squad)", "line", "ACR", "light", 6, "fit"),
        ("Replacement 2 (1st Squad)", "line", "ACR", "light", 6, "fit"),
    ]
    assert history(umpire_api, "1st Squad")[-1] == (
        "Day 1: 2 replacements arrived: Replacement 1 (1st Squad) and Replacement 2 (1st Squad)."
    )
    record = umpire_api.get(f"/api/v1/troopers/{new[0].id}/").json()
    assert "Day 1: arrived as a replacement." in str(record)
    assert (
        umpire_api.get(f"/api/v1/units/{unit('2nd Platoon').id}/replacements/").json()["on_the_way"]
        == []
    )

    # A later advance enlists nobody twice.
    advance(umpire_api, campaign)
    assert detail(umpire_api, "1st Squad")["strength"] == 8


def test_rebuilding_the_read_models_gives_the_same_rows(umpire, umpire_api):
    """A platoon that starts the campaign refitting in a safe area (its roster file says so):
    roll, assign with a drop, arrive; the log folds to exactly the rows written inline."""
    campaign = campaign_for(umpire, name="Refit")
    text = BLUE.replace("toe_strength: 8\n", "toe_strength: 8\n        status: safe_area\n")
    text = text.replace("toe_strength: 4\n", "toe_strength: 4\n        status: safe_area\n")
    response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
    assert response.status_code == 201, response.json()
    assert request(umpire_api, "2nd Platoon", dice=[6]).status_code == 201
    response = assign(umpire_api, "2nd Platoon", {"1st Squad": 3, "3rd Squad": 2}, dice=[2])
    assert response.status_code == 201, response.json()
    advance(umpire_api, campaign)
    assert detail(umpire_api, "1st Squad")["quality"] == "regular"
    assert detail(umpire_api, "3rd Squad")["strength"] == 5

    inline = projections.dump_rows()
    call_command("rebuild_projections", "--no-progress")
    assert projections.dump_rows() == inline


def test_the_platoon_history_tells_the_roll_and_the_shares(umpire_api, campaign):
    move(umpire_api, "1st Squad")
    move(umpire_api, "3rd Squad")
    request(umpire_api, "2nd Platoon", dice=[4])
    response = assign(umpire_api, "2nd Platoon", {"1st Squad": 1, "3rd Squad": 1}, dice=[8])
    assert response.status_code == 201, response.json()
    assert history(umpire_api, "2nd Platoon")[-2:] == [
        "Day 0: replacements rolled, d8 4: 4 replacements available.",
        "Day 0: 2 replacements assigned (1st Squad 1, 3rd Squad 1); 2 left. They arrive on day 1.",
    ]
    # A Green squad does not drop to Untrained (P.61): no die is rolled for it.
    assert history(umpire_api, "3rd Squad")[-1] == (
        "Day 0: 1 replacement assigned: no quality check: Green units do not drop further "
        "(3 members). They arrive on day 1."
    )


def test_more_replacements_than_the_die_faces_drop_the_quality_without_a_roll(umpire, umpire_api):
    campaign = setup_campaign(umpire, umpire_api, replacement_die=12)
    move(umpire_api, "1st Squad")
    request(umpire_api, "2nd Platoon", dice=[12])
    # Eight members roll a D8: nine replacements drop it for certain.
    response = assign(umpire_api, "2nd Platoon", {"1st Squad": 9}, dice=[])
    assert response.status_code == 201, response.json()
    assert detail(umpire_api, "1st Squad")["quality"] == "regular"
    assert (
        "9 replacements against a d8 drop it without a roll: Veteran to Regular"
        in (history(umpire_api, "1st Squad")[-1])
    )
    assert campaign.id


def test_the_server_rolls_when_no_dice_are_entered(umpire_api, campaign):
    move(umpire_api, "1st Squad")
    response = request(umpire_api, "2nd Platoon")
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    (event,) = job["events"]
    assert [(d["die"], d["source"]) for d in event["payload"]["dice"]] == [(8, "server")]
    available = event["payload"]["available"]

    response = assign(umpire_api, "2nd Platoon", {"1st Squad": 1})
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    (event,) = job["events"]
    assert [(d["die"], d["source"]) for d in event["payload"]["dice"]] == [(8, "server")]
    assert event["payload"]["left"] == available - 1


def test_replacement_days_come_from_the_options_p61(umpire, umpire_api):
    campaign = setup_campaign(umpire, umpire_api, replacement_days=2)
    move(umpire_api, "1st Squad")
    request(umpire_api, "2nd Platoon", dice=[3])
    assign(umpire_api, "2nd Platoon", {"1st Squad": 1}, dice=[8])
    advance(umpire_api, campaign)
    assert detail(umpire_api, "1st Squad")["strength"] == 8
    advance(umpire_api, campaign)
    assert detail(umpire_api, "1st Squad")["strength"] == 9


def test_with_no_days_to_take_them_in_they_join_at_once(umpire, umpire_api):
    setup_campaign(umpire, umpire_api, replacement_days=0)
    move(umpire_api, "3rd Squad")
    request(umpire_api, "2nd Platoon", dice=[3])
    response = assign(umpire_api, "2nd Platoon", {"3rd Squad": 1}, dice=[])
    assert response.status_code == 201, response.json()
    types = [e["type"] for e in response.json()["events"]]
    assert types == [
        "rosters.ReplacementsAssigned",
        "rosters.TrooperEnlisted",
        "rosters.ReplacementsArrived",
    ]
    assert detail(umpire_api, "3rd Squad")["strength"] == 4


def test_a_new_roll_on_a_later_day_lapses_the_unassigned_men(umpire_api, campaign):
    move(umpire_api, "1st Squad")
    request(umpire_api, "2nd Platoon", dice=[5])
    assign(umpire_api, "2nd Platoon", {"1st Squad": 1}, dice=[8])
    advance(umpire_api, campaign)
    fight(umpire_api, campaign, "3rd Squad")  # P.60: one roll per platoon between battles
    response = request(umpire_api, "2nd Platoon", dice=[2])
    assert response.status_code == 201, response.json()
    assert response.json()["events"][0]["payload"]["lapsed"] == 4
    assert history(umpire_api, "2nd Platoon")[-1] == (
        "Day 1: replacements rolled, d8 2: 2 replacements available. 4 replacements of the "
        "last roll, never assigned, lapsed."
    )


# --- Refusals: each a JSON error, and nothing appended -------------------------------------------


def refused(response, status: int, code: str, field: str | None = None) -> None:
    body = response.json()
    assert (response.status_code, body["code"]) == (status, code), body
    assert body["message"]
    if field is not None:
        assert body["field"] == field


def test_assigning_more_replacements_than_were_rolled_is_refused(umpire_api, campaign):
    move(umpire_api, "1st Squad")
    move(umpire_api, "3rd Squad")
    before = store.last_sequence(campaign.id)
    refused(
        assign(umpire_api, "2nd Platoon", {"1st Squad": 1}, dice=[8]),
        422,
        "replacements.over_assigned",
        "assignments",
    )
    request(umpire_api, "2nd Platoon", dice=[3])
    assign(umpire_api, "2nd Platoon", {"1st Squad": 2}, dice=[8])
    before = store.last_sequence(campaign.id)
    response = assign(umpire_api, "2nd Platoon", {"1st Squad": 1, "3rd Squad": 1}, dice=[8])
    refused(response, 422, "replacements.over_assigned", "assignments")
    assert "only 1 of the 3 rolled on day 0" in response.json()["message"]
    assert store.last_sequence(campaign.id) == before


def test_replacements_for_a_unit_in_the_line_are_refused_p61(umpire_api, campaign):
    """P.61: a unit must be pulled out of the line to a safe area to take replacements."""
    before = store.last_sequence(campaign.id)
    refused(
        request(umpire_api, "2nd Platoon", dice=[3]), 409, "replacements.not_in_safe_area", "unit"
    )
    assert store.last_sequence(campaign.id) == before
    move(umpire_api, "1st Squad")
    request(umpire_api, "2nd Platoon", dice=[3])
    before = store.last_sequence(campaign.id)
    refused(
        assign(umpire_api, "2nd Platoon", {"3rd Squad": 1}, dice=[8]),
        409,
        "replacements.not_in_safe_area",
        "assignments.0.unit_id",
    )
    move(umpire_api, "3rd Squad", "in_the_field")
    before = store.last_sequence(campaign.id)
    refused(
        assign(umpire_api, "2nd Platoon", {"3rd Squad": 1}, dice=[8]),
        409,
        "replacements.not_in_safe_area",
    )
    assert store.last_sequence(campaign.id) == before


@pytest.mark.parametrize(
    ("shares", "dice", "status", "code", "field"),
    [
        ({"Lone Squad": 1}, [8], 422, "replacements.not_in_platoon", "assignments.0.unit_id"),
        ({"2nd Squad": 1}, [4], 422, "replacements.elite_not_eligible", "assignments.0.unit_id"),
        ({"1st Squad": 1}, [9], 400, "dice.impossible", "dice.0"),
        ({"1st Squad": 1}, [], 400, "dice.missing", "dice.0"),
        ({"1st Squad": 1}, [8, 8], 400, "dice.unused", "dice.1"),
        ({"1st Squad": 0}, [8], 400, "invalid.min_value", "assignments.count"),
    ],
)
def test_bad_assignments_are_refused(umpire_api, campaign, shares, dice, status, code, field):
    for name in ("1st Squad", "2nd Squad", "Lone Squad"):
        move(umpire_api, name)
    request(umpire_api, "2nd Platoon", dice=[6])
    before = store.last_sequence(campaign.id)
    refused(assign(umpire_api, "2nd Platoon", shares, dice=dice), status, code, field)
    assert store.last_sequence(campaign.id) == before


def test_a_squad_listed_twice_is_refused(umpire_api, campaign):
    move(umpire_api, "1st Squad")
    request(umpire_api, "2nd Platoon", dice=[6])
    before = store.last_sequence(campaign.id)
    squad = str(unit("1st Squad").id)
    response = umpire_api.post(
        f"/api/v1/units/{unit('2nd Platoon').id}/replacements/assign/",
        {"assignments": [{"unit_id": squad, "count": 1}, {"unit_id": squad, "count": 1}]},
    )
    refused(response, 400, "replacements.duplicate_squad", "assignments.1.unit_id")
    assert store.last_sequence(campaign.id) == before


def test_over_strength_is_refused_when_the_option_forbids_it_p60(umpire, umpire_api):
    campaign = setup_campaign(umpire, umpire_api, allow_overstrength=False)
    move(umpire_api, "3rd Squad")  # three men of a TO&E of four: one vacancy
    request(umpire_api, "2nd Platoon", dice=[6])
    before = store.last_sequence(campaign.id)
    refused(
        assign(umpire_api, "2nd Platoon", {"3rd Squad": 2}, dice=[]),
        422,
        "replacements.over_strength",
        "assignments",
    )
    assert store.last_sequence(campaign.id) == before
    assert assign(umpire_api, "2nd Platoon", {"3rd Squad": 1}, dice=[]).status_code == 201
    # The man on his way has taken the last vacancy.
    refused(
        assign(umpire_api, "2nd Platoon", {"3rd Squad": 1}, dice=[]),
        422,
        "replacements.over_strength",
    )


def test_requests_that_do_not_fit_are_refused(umpire_api, api_for, make_user, campaign):
    move(umpire_api, "1st Squad")
    before = store.last_sequence(campaign.id)
    refused(request(umpire_api, "1st Squad", dice=[3]), 400, "replacements.not_a_platoon", "unit")
    refused(request(umpire_api, "2nd Platoon", dice=[9]), 400, "dice.impossible", "dice.0")
    stranger = api_for(make_user("outsider"))
    refused(request(stranger, "2nd Platoon", dice=[3]), 404, "unit.not_found")
    assert store.last_sequence(campaign.id) == before
    assert request(umpire_api, "2nd Platoon", dice=[3]).status_code == 201
    before = store.last_sequence(campaign.id)
    refused(request(umpire_api, "2nd Platoon", dice=[3]), 409, "replacements.already_rolled")
    refused(request(umpire_api, "2nd Platoon"), 409, "replacements.already_rolled")
    assert store.last_sequence(campaign.id) == before


def test_fast_and_dirty_campaigns_have_no_platoon_replacement_roll(umpire, umpire_api):
    campaign = campaign_for(umpire, name="FaD", ruleset="fad")
    text = "name: P\nside: Blue\nunits:\n  - {name: P1, kind: platoon}\n"
    response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
    assert response.status_code == 201, response.json()
    before = store.last_sequence(campaign.id)
    refused(request(umpire_api, "P1", dice=[3]), 400, "replacements.not_in_ruleset")
    assert store.last_sequence(campaign.id) == before
