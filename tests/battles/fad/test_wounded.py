"""Fast and Dirty Recover Wounded and destroyed transports through HTTP with table dice (FaD p.21,
p.35).

The rifle platoon of ``examples/fad-rifle-platoon.yaml`` against a militia squad (Conscript,
Steady, five figures, no medic), a cell with a Medic and a technical that can carry the militia.
Every expected number is worked out by hand from p.35 (recovery d6: Under Fire or Pinned -1,
Medic present +1; 6+ recovered, 4-5 stabilised, under 4 died of wounds; Leave No One Behind d6
5+ no penalty) and p.21 (passengers: 3-4 wounded, 5+ killed; power armour 5 wounded, 6 killed;
basic game 4+ killed; survivors Pinned).
"""

from __future__ import annotations

import pytest

from battles.models import Participant
from eventlog import store
from rosters.models import (
    Trooper,
    TrooperRecordEntry,
    Unit,
    UnitHistoryEntry,
    Vehicle,
)
from tests.battles.fad.table import (
    MILITIA_SQUAD,
    act,
    battle_log,
    done,
    fad_battle,
    insurgents,
    members,
    unit,
)
from tests.battles.helpers import assert_rebuild_keeps_rows

pytestmark = pytest.mark.django_db

INSURGENTS = insurgents(
    MILITIA_SQUAD,
    """\
  - name: Cell
    kind: squad
    quality: regular
    resolve: steady
    troopers:
      - {name: Cell Rook, role: leader, weapon: assault rifle, armour: none}
      - {name: Doc Amos, role: medic, weapon: pistol, armour: none}
      - {name: Cell Bly, weapon: assault rifle, armour: none}
      - {name: Cell Cobb, weapon: assault rifle, armour: none}
      - {name: Cell Dunn, weapon: assault rifle, armour: none}
      - {name: Cell Egan, weapon: assault rifle, armour: none}
  - name: Technical Crew
    kind: vehicle_crew
    quality: conscript
    resolve: uncertain
    troopers:
      - {name: Driver Nash, role: leader, weapon: low-tech rifle, armour: none}
    vehicles:
      - {name: Technical, class: light transport, size: 2, capacity: 5, armour: 0}
""",
)


def make_campaign(umpire, umpire_api, options=None):
    return fad_battle(umpire, umpire_api, INSURGENTS, options)


@pytest.fixture
def setup(umpire, umpire_api):
    return make_campaign(umpire, umpire_api)


post = act


def participant(unit_row: Unit) -> Participant:
    return Participant.objects.get(unit_id=unit_row.id)


def wound(api, url, unit_row: Unit, *names: str, killed: tuple[str, ...] = ()) -> None:
    figures = members(unit_row)
    done(
        api,
        url,
        "fad_losses",
        {
            "unit_id": str(unit_row.id),
            "casualties": [{"trooper_id": str(figures[n].id), "result": "wounded"} for n in names]
            + [{"trooper_id": str(figures[n].id), "result": "killed"} for n in killed],
        },
    )


# Rifle Squad 1 (Regular, seven assault rifles, a SAW) at the militia 10" away: best of (5, 3)
# + 1 Regular + 2 riflemen + 2 SAW = Fire Effect 10, three hits, Under Fire (not above 12):
#   Pike 1+2 against 6-2: no effect; Voss 2+2 against 4-2: wounded; Odell 5+2 against 2-2: killed.
SHOT_DICE = [5, 3, 1, 6, 2, 4, 5, 2]
ORDER = ("Rifle Pike", "Rifle Voss", "Gun Odell", "Rifle Ward", "Boss Hale")


def shoot_militia(api, url, forces) -> None:
    militia = unit(forces, "Insurgents", "Militia Squad")
    figures = members(militia)
    done(
        api,
        url,
        "fad_shoot",
        {
            "unit_id": str(unit(forces, "Federation", "Rifle Squad 1").id),
            "target_id": str(militia.id),
            "distance": 10,
            "basic_weapon": "assault_rifles",
            "riflemen": 7,
            "support_weapons": ["squad_automatic_weapon"],
            "target_order": [str(figures[name].id) for name in ORDER],
        },
        SHOT_DICE,
    )
    assert participant(militia).marker == "under_fire"


@pytest.mark.parametrize(
    ("under_fire", "die", "number", "result", "status"),
    [
        (True, 6, 5, "stabilised", "stabilised"),
        (False, 6, 6, "recovered", "fit"),
        (True, 4, 3, "died_of_wounds", "dead"),
        (False, 4, 4, "stabilised", "stabilised"),
    ],
)
def test_wounded_recovered_under_fire_follow_p35(
    umpire_api, setup, under_fire, die, number, result, status
):
    """FaD p.35 Determine Recovery: one aid team of two fit troopers treats Voss; the unit Under
    Fire takes -1. A 6 under fire is a 5: stabilised, where it would have recovered him; a 4 under
    fire is a 3: he dies of his wounds. A stabilised figure no longer counts as a casualty when
    Checking Resolve: only Odell does."""
    _campaign, forces, url = setup
    militia = unit(forces, "Insurgents", "Militia Squad")
    if under_fire:
        shoot_militia(umpire_api, url, forces)
    else:
        wound(umpire_api, url, militia, "Rifle Voss", killed=("Gun Odell",))
    voss = members(militia)["Rifle Voss"]
    (event,) = done(umpire_api, url, "fad_recover_wounded", {"unit_id": str(militia.id)}, [die])
    treated = event["payload"]
    assert event["type"] == "battles.FadWoundedTreated"
    assert (treated["aid_teams"], treated["troopers_aiding"], treated["troopers_free"]) == (1, 2, 1)
    (figure,) = treated["treated"]
    assert figure["trooper_id"] == str(voss.id)
    assert (figure["carer"], figure["modifier"], figure["recovery_number"]) == (
        "aid_team",
        -1 if under_fire else 0,
        number,
    )
    assert figure["result"] == result
    assert treated["dice"][0]["purpose"] == "recovery roll for Rifle Voss"
    assert members(militia)["Rifle Voss"].status == status
    text = {"stabilised": "stabilised", "fit": "recovered and back in action"}.get(
        status, "died of his wounds"
    )
    assert any(
        line.startswith("Militia Squad recovered wounded")
        and f"Rifle Voss treated by an aid team: {die}" in line
        and text in line
        for line in battle_log(umpire_api, url)
    ), battle_log(umpire_api, url)

    (checked,) = done(umpire_api, url, "fad_check_resolve", {"unit_id": str(militia.id)})
    # Odell dead; Voss counts only if he died of his wounds.
    assert checked["payload"]["losses"] == (2 if status == "dead" else 1)


def test_a_medic_treats_two_and_adds_one_p33_p35(umpire_api, setup):
    """FaD p.33 Medic (two wounded, no helper) and p.35 (+1): Bly, Cobb and Dunn are wounded;
    Rook, Doc Amos and Egan are fit. The Medic takes Bly and Cobb, Rook and Egan form one aid
    team for Dunn. Dice 5, 3, 2: 5+1 = 6 recovered, 3+1 = 4 stabilised, 2+1 = 3 died of wounds
    (the +1 reaches every roll: option wounds_medic_bonus_scope = whole_squad)."""
    _campaign, forces, url = setup
    cell = unit(forces, "Insurgents", "Cell")
    wound(umpire_api, url, cell, "Cell Bly", "Cell Cobb", "Cell Dunn")
    (event,) = done(umpire_api, url, "fad_recover_wounded", {"unit_id": str(cell.id)}, [5, 3, 2])
    p = event["payload"]
    figures = members(cell)
    assert p["medic_id"] == str(figures["Doc Amos"].id)
    assert [t["carer"] for t in p["treated"]] == ["medic", "medic", "aid_team"]
    assert [t["recovery_number"] for t in p["treated"]] == [6, 4, 3]
    assert [figures[n].status for n in ("Cell Bly", "Cell Cobb", "Cell Dunn")] == [
        "fit",
        "stabilised",
        "dead",
    ]
    assert any(
        "Cell recovered wounded (Medic present +1): Cell Bly treated by the Medic: 5+1 = 6, "
        "recovered and back in action; Cell Cobb treated by the Medic: 3+1 = 4, stabilised; "
        "Cell Dunn treated by an aid team: 2+1 = 3, died of his wounds." in line
        for line in battle_log(umpire_api, url)
    ), battle_log(umpire_api, url)
    assert Trooper.objects.get(pk=figures["Cell Bly"].id).wounds == 1
    (history,) = UnitHistoryEntry.objects.filter(
        unit_id=cell.id, event_type="battles.FadWoundedTreated"
    )
    assert history.summary == (
        "Recovered wounded at Valley road, turn 1: Cell Bly recovered and back in action; "
        "Cell Cobb stabilised; Cell Dunn died of his wounds."
    )
    assert history.changes == {"strength": -1}
    (record,) = TrooperRecordEntry.objects.filter(
        trooper_id=figures["Cell Dunn"].id, event_type="battles.FadWoundedTreated"
    )
    assert record.summary == (
        "Treated for wounds at Valley road, turn 1: recovery roll 3, died of his wounds (FaD p.35)."
    )


@pytest.mark.parametrize(("scope", "expected"), [("whole_squad", 6), ("medic_patients", 5)])
def test_the_medic_bonus_scope_option_p35(umpire, umpire_api, scope, expected):
    """Option wounds_medic_bonus_scope: with medic_patients the +1 is only for the Medic's own
    two; the aid team's patient rolls 5 unmodified: stabilised, not recovered."""
    _campaign, forces, url = make_campaign(umpire, umpire_api, {"wounds_medic_bonus_scope": scope})
    cell = unit(forces, "Insurgents", "Cell")
    wound(umpire_api, url, cell, "Cell Bly", "Cell Cobb", "Cell Dunn")
    (event,) = done(umpire_api, url, "fad_recover_wounded", {"unit_id": str(cell.id)}, [5, 5, 5])
    assert [t["recovery_number"] for t in event["payload"]["treated"]] == [6, 6, expected]
    assert event["payload"]["medic_bonus_scope"] == scope


def test_the_player_orders_the_wounded_and_too_few_teams_leave_some_untreated_p35(
    umpire_api, setup
):
    """p.35 Forming Aid Teams: the militia's three fit figures form one team, so of Voss and
    Pike, wounded, only the one named first is treated; the other stays untreated and may be
    treated in a later action."""
    _campaign, forces, url = setup
    militia = unit(forces, "Insurgents", "Militia Squad")
    wound(umpire_api, url, militia, "Rifle Voss", "Rifle Pike")
    figures = members(militia)
    body = {
        "unit_id": str(militia.id),
        "trooper_ids": [str(figures["Rifle Pike"].id), str(figures["Rifle Voss"].id)],
    }
    (event,) = done(umpire_api, url, "fad_recover_wounded", body, [6])
    p = event["payload"]
    assert [t["trooper_id"] for t in p["treated"]] == [str(figures["Rifle Pike"].id)]
    assert p["untreated"] == [str(figures["Rifle Voss"].id)]
    assert members(militia)["Rifle Pike"].status == "fit"
    assert any("untreated: Rifle Voss" in line for line in battle_log(umpire_api, url))


def test_recovered_stabilised_and_dead_after_the_battle_p35_p66(umpire_api, setup):
    """After the battle (p.66, campaign_wounded_at_end = count_as_losses): Bly recovered in the
    battle and is no loss; Cobb, stabilised, is still a wounded loss; Dunn died of his wounds and
    is a killed one. The cell lost 2 of 6: INFANTRY REPLACEMENTS d6 5, full strength."""
    _campaign, forces, url = setup
    cell = unit(forces, "Insurgents", "Cell")
    wound(umpire_api, url, cell, "Cell Bly", "Cell Cobb", "Cell Dunn")
    done(umpire_api, url, "fad_recover_wounded", {"unit_id": str(cell.id)}, [5, 3, 2])
    figures = members(cell)
    assert umpire_api.post(f"{url}end/", {"winner": "Federation"}).status_code == 200
    response = umpire_api.post(f"{url}after-action/", {"dice": [5, 3]})
    assert response.status_code == 201, response.json()
    (replaced,) = [
        e["payload"]
        for e in response.json()["events"]
        if e["type"] == "battles.FadInfantryReplacementsRolled"
        and e["payload"]["unit_id"] == str(cell.id)
    ]
    assert sorted((x["trooper_id"], x["fate"]) for x in replaced["lost"]) == sorted(
        [(str(figures["Cell Cobb"].id), "wounded"), (str(figures["Cell Dunn"].id), "killed")]
    )
    assert (replaced["losses"], replaced["strength_before"]) == (2, 6)
    assert members(cell)["Cell Bly"].status == "fit"


def test_leave_no_one_behind_lowers_resolve_once_p35(umpire_api, setup):
    """p.35 Leave No One Behind: the militia (no medic) moves off and Voss lies 6" from the
    nearest fit member, beyond its 3" coherency: abandoned (option wounds_abandon_trigger =
    left_outside_coherency). d6 4, under 5: it Checks Resolve a level lower, Uncertain instead of
    Steady, for the rest of the game; Uncertain breaks at 25% of 5 = 2 casualties (p.13), not 3.
    A second failed roll lowers it no further ("one level less than normal")."""
    _campaign, forces, url = setup
    militia = unit(forces, "Insurgents", "Militia Squad")
    wound(umpire_api, url, militia, "Rifle Voss")
    voss = members(militia)["Rifle Voss"]
    body = {
        "unit_id": str(militia.id),
        "trooper_ids": [str(voss.id)],
        "gaps_inches": [6],
        "coherency_inches": 3,
    }
    (event,) = done(umpire_api, url, "fad_leave_wounded", body, [4])
    p = event["payload"]
    assert (p["abandoned"], p["reason"], p["resolve_penalty"]) == (True, "rolled", True)
    assert (p["resolve_before"], p["resolve_after"]) == ("steady", "uncertain")
    assert participant(militia).resolve == "uncertain"
    assert any(
        "Militia Squad moved off leaving Rifle Voss behind: Leave No One Behind 4, under 5: it "
        "Checks Resolve as Uncertain instead of Steady for the rest of the game" in line
        for line in battle_log(umpire_api, url)
    ), battle_log(umpire_api, url)
    (checked,) = done(umpire_api, url, "fad_check_resolve", {"unit_id": str(militia.id)})
    assert (checked["payload"]["resolve"], checked["payload"]["break_point"]) == ("uncertain", 2)

    (again,) = done(umpire_api, url, "fad_leave_wounded", body, [1])
    assert again["payload"]["resolve_penalty"] is True
    assert again["payload"]["resolve_after"] == "uncertain"
    assert participant(militia).resolve == "uncertain"
    assert_rebuild_keeps_rows()


@pytest.mark.parametrize(
    ("change", "dice", "reason", "penalty"),
    [
        ({}, [5], "rolled", False),
        ({"gaps_inches": [2]}, [], "not_abandoned", False),
        ({"hardened": True}, [], "hardened", False),
        ({"treated": True, "gaps_inches": None}, [], "no_unstabilised_wounded", False),
    ],
)
def test_leave_no_one_behind_without_penalty_p35(umpire_api, setup, change, dice, reason, penalty):
    """p.35: 5+ leaves without penalty; a wounded figure within coherency is not abandoned (no
    roll); Hardened troops (p.40) never roll; a stabilised figure is left without a roll (d6 4:
    stabilised by an aid team, no distances needed)."""
    _campaign, forces, url = setup
    militia = unit(forces, "Insurgents", "Militia Squad")
    wound(umpire_api, url, militia, "Rifle Voss")
    change = dict(change)
    if change.pop("treated", False):
        done(umpire_api, url, "fad_recover_wounded", {"unit_id": str(militia.id)}, [4])
    voss = members(militia)["Rifle Voss"]
    body = {
        "unit_id": str(militia.id),
        "trooper_ids": [str(voss.id)],
        "gaps_inches": [6],
        "coherency_inches": 3,
    } | change
    body = {key: value for key, value in body.items() if value is not None}
    (event,) = done(umpire_api, url, "fad_leave_wounded", body, dice)
    assert (event["payload"]["reason"], event["payload"]["resolve_penalty"]) == (reason, penalty)
    assert participant(militia).resolve == ""


def test_a_medic_left_with_the_wounded_and_the_declared_trigger_p35(umpire, umpire_api):
    """p.35: a squad with a medic may leave him with its wounded: no roll. Option
    wounds_abandon_trigger = declared: the player's word is enough, no distances."""
    _campaign, forces, url = make_campaign(
        umpire, umpire_api, {"wounds_abandon_trigger": "declared"}
    )
    cell = unit(forces, "Insurgents", "Cell")
    wound(umpire_api, url, cell, "Cell Bly")
    figures = members(cell)
    body = {"unit_id": str(cell.id), "trooper_ids": [str(figures["Cell Bly"].id)]}
    (event,) = done(umpire_api, url, "fad_leave_wounded", body | {"medic_stays": True})
    assert (event["payload"]["reason"], event["payload"]["medic_id"]) == (
        "medic_stays",
        str(figures["Doc Amos"].id),
    )
    (event,) = done(umpire_api, url, "fad_leave_wounded", body, [2])
    assert event["payload"]["resolve_after"] == "uncertain"


@pytest.mark.parametrize(
    ("action", "body", "status", "code"),
    [
        ("fad_recover_wounded", {"unit": ("Federation", "Rifle Squad 1")}, 409, "wounded.none"),
        ("fad_recover_wounded", {"named": "Rifle Pike"}, 400, "wounded.not_untreated"),
        ("fad_recover_wounded", {"aid_teams": 2}, 422, "wounded.refused"),
        (
            "fad_recover_wounded",
            {"unit": ("Insurgents", "Technical Crew")},
            422,
            "wounded.not_infantry",
        ),
        ("fad_leave_wounded", {"named": "Rifle Voss"}, 400, "wounded.gaps_required"),
        ("fad_leave_wounded", {"named": "Rifle Pike"}, 400, "wounded.not_wounded"),
        (
            "fad_leave_wounded",
            {"named": "Rifle Voss", "medic_stays": True},
            422,
            "wounded.no_medic",
        ),
    ],
)
def test_refusals_record_nothing(umpire_api, setup, action, body, status, code):
    """A refused treatment or departure appends no event: a unit with no untreated wounded, a
    figure who is not wounded, more aid teams than fit troopers allow (three fit: one team), a
    vehicle crew, no distances, a fit figure left behind, no medic to leave."""
    campaign, forces, url = setup
    militia = unit(forces, "Insurgents", "Militia Squad")
    wound(umpire_api, url, militia, "Rifle Voss", "Rifle Ward")
    figures = members(militia)
    body = dict(body)
    chosen = unit(forces, *body.pop("unit")) if "unit" in body else militia
    payload = {"unit_id": str(chosen.id)} | body
    if "named" in body:
        payload["trooper_ids"] = [str(figures[payload.pop("named")].id)]
    before = store.last_sequence(campaign.id)
    response = post(umpire_api, url, action, payload, [6])
    assert response.status_code == status, response.json()
    assert response.json()["code"] == code, response.json()
    assert store.last_sequence(campaign.id) == before


def test_no_recovery_in_the_basic_game_p35(umpire, umpire_api):
    """Option adv_recover_wounded off: the basic game has no wounded to recover."""
    campaign, forces, url = make_campaign(umpire, umpire_api, {"adv_recover_wounded": False})
    militia = unit(forces, "Insurgents", "Militia Squad")
    before = store.last_sequence(campaign.id)
    response = post(umpire_api, url, "fad_recover_wounded", {"unit_id": str(militia.id)}, [6])
    assert response.status_code == 422, response.json()
    assert response.json()["code"] == "wounded.rule_off"
    assert store.last_sequence(campaign.id) == before


def test_the_server_rolls_recovery_in_a_job_and_the_rows_rebuild(umpire_api, setup):
    """Without table dice the server rolls one d6 per treated figure; each figure's status is the
    band its roll falls in, and the read models fold again to the same rows."""
    _campaign, forces, url = setup
    cell = unit(forces, "Insurgents", "Cell")
    wound(umpire_api, url, cell, "Cell Bly", "Cell Cobb")
    response = umpire_api.post(f"{url}actions/fad_recover_wounded/", {"unit_id": str(cell.id)})
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    p = job["events"][0]["payload"]
    assert {d["source"] for d in p["dice"]} == {"server"}
    band = {6: "fit", 5: "stabilised", 4: "stabilised"}
    for treated, die in zip(p["treated"], p["dice"], strict=True):
        assert treated["recovery_number"] == die["result"] + 1
        expected = band.get(min(treated["recovery_number"], 6), "dead")
        assert Trooper.objects.get(pk=treated["trooper_id"]).status == expected
    assert_rebuild_keeps_rows()


# --- a destroyed transport's passengers (p.21) -----------------------------------------------

# Rifle Squad 2 with its grenade launcher destroys the technical (see test_shooting): Fire
# Effect 9, three hits; the third penetrates and rolls 6: destroyed.
VEHICLE_DICE = [4, 2, 5, 1, 5, 4, 3, 3, 5, 6, 1, 6, 1]


def shoot_technical(api, url, forces, dice, **extra):
    crew = unit(forces, "Insurgents", "Technical Crew")
    body = {
        "unit_id": str(unit(forces, "Federation", "Rifle Squad 2").id),
        "target_id": str(crew.id),
        "vehicle_id": str(Vehicle.objects.get(unit_id=crew.id).id),
        "distance": 10,
        "basic_weapon": "assault_rifles",
        "riflemen": 7,
        "support_weapons": ["grenade_launcher"],
        "passengers_unit_id": str(unit(forces, "Insurgents", "Militia Squad").id),
    } | extra
    return post(api, url, "fad_shoot_vehicle", body, dice)


@pytest.mark.parametrize(
    ("options", "extra", "effects"),
    [
        ({}, {}, ["no_effect", "wounded", "wounded", "killed", "killed"]),
        ({"adv_recover_wounded": False}, {}, ["no_effect"] * 2 + ["killed"] * 3),
        ({}, {"passengers_power_armour": True}, ["no_effect"] * 3 + ["wounded", "killed"]),
    ],
)
def test_a_destroyed_transports_passengers_roll_and_survivors_are_pinned_p21(
    umpire, umpire_api, options, extra, effects
):
    """FaD p.21 Destroying a Vehicle: each passenger rolls 1d6, here 1, 3, 4, 5, 6 in roster
    order. With Recover Wounded 3-4 wounded and 5+ killed; basic game 4+ killed; power armour 5
    wounded, 6 killed. The survivors are Pinned; the casualties are losses to fire."""
    _campaign, forces, url = make_campaign(umpire, umpire_api, options)
    militia = unit(forces, "Insurgents", "Militia Squad")
    response = shoot_technical(umpire_api, url, forces, [*VEHICLE_DICE, 1, 3, 4, 5, 6], **extra)
    assert response.status_code == 201, response.json()
    events = response.json()["events"]
    assert [e["type"] for e in events] == ["battles.FadVehicleShotResolved"] + [
        "battles.FadLossesRecorded"
    ] * 2
    shot = events[0]["payload"]
    assert shot["destroyed"] is True
    assert [(p["die"], p["effect"]) for p in shot["passengers"]] == list(
        zip([1, 3, 4, 5, 6], effects, strict=True)
    )
    assert [d["purpose"] for d in shot["dice"][-5:]] == [
        f"survival roll for passenger {name}"
        for name in ("Boss Hale", "Gun Odell", "Rifle Pike", "Rifle Voss", "Rifle Ward")
    ]
    losses = events[2]["payload"]
    assert (losses["unit_id"], losses["cause"]) == (str(militia.id), "fire")
    status = {"no_effect": "fit", "wounded": "wounded", "killed": "dead"}
    figures = members(militia)
    assert [t.status for t in figures.values()] == [status[e] for e in effects]
    assert participant(militia).marker == "pinned"
    assert any(
        "passengers of Militia Squad: Boss Hale 1 survives" in line
        and "Militia Squad is Pinned" in line
        for line in battle_log(umpire_api, url)
    ), battle_log(umpire_api, url)


def test_passengers_only_roll_when_the_vehicle_is_destroyed_and_must_be_of_its_side_p21(
    umpire_api, setup
):
    """No roll while the vehicle survives (hits that do not penetrate); passengers named from
    the other side are refused and nothing is recorded."""
    campaign, forces, url = setup
    militia = unit(forces, "Insurgents", "Militia Squad")
    # Best of 2, 1 = 2, grenade launcher 1: Fire Effect 3, one hit; 1+2 against 5: no effect.
    response = shoot_technical(umpire_api, url, forces, [2, 1, 1, 1, 5])
    assert response.status_code == 201, response.json()
    shot = response.json()["events"][0]["payload"]
    assert (shot["destroyed"], shot["passengers"]) == (False, [])
    assert participant(militia).marker == ""
    before = store.last_sequence(campaign.id)
    squad3 = unit(forces, "Federation", "Rifle Squad 3")
    refused = shoot_technical(
        umpire_api, url, forces, VEHICLE_DICE, passengers_unit_id=str(squad3.id)
    )
    assert refused.status_code == 400, refused.json()
    assert refused.json()["code"] == "fire.not_passengers"
    assert store.last_sequence(campaign.id) == before


def test_the_dice_prompt_names_each_recovery_roll_and_writes_nothing(umpire_api, setup):
    """The dice prompt lists one d6 per treated figure, in treatment order, for the unit."""
    campaign, forces, url = setup
    cell = unit(forces, "Insurgents", "Cell")
    wound(umpire_api, url, cell, "Cell Bly", "Cell Cobb")
    before = store.last_sequence(campaign.id)
    response = umpire_api.get(f"{url}actions/fad_recover_wounded/", {"unit_id": str(cell.id)})
    assert response.status_code == 200, response.json()
    dice = response.json()["dice"]
    assert [(d["die"], d["for"], d["purpose"]) for d in dice] == [
        (6, str(cell.id), "recovery roll for Cell Bly"),
        (6, str(cell.id), "recovery roll for Cell Cobb"),
    ]
    assert store.last_sequence(campaign.id) == before


@pytest.mark.parametrize(("option", "status"), [(False, "wounded"), (True, "dead")])
def test_a_recovered_figure_wounded_again_dies_only_with_the_option(
    umpire, umpire_api, option, status
):
    """FaD p.35 leaves open what a second wound does to a recovered figure (option
    ``wounds_recovered_second_wound_kills``, default off: he is wounded again)."""
    _campaign, forces, url = make_campaign(
        umpire, umpire_api, {"wounds_recovered_second_wound_kills": option}
    )
    militia = unit(forces, "Insurgents", "Militia Squad")
    wound(umpire_api, url, militia, "Rifle Voss")
    done(umpire_api, url, "fad_recover_wounded", {"unit_id": str(militia.id)}, [6])
    assert members(militia)["Rifle Voss"].status == "fit"
    shoot_militia(umpire_api, url, forces)  # Voss wounded by the shot (2+2 against 4-2)
    assert members(militia)["Rifle Voss"].status == status


@pytest.mark.parametrize(
    ("vehicle_type", "large", "marker"),
    [(None, False, "under_fire"), ("mbt", True, "pinned")],
)
def test_units_within_4_inches_of_a_destroyed_vehicle_p21(
    umpire_api, setup, vehicle_type, large, marker
):
    """FaD p.21: troops within 4" of a destroyed vehicle are Under Fire if it is small, Pinned if
    it is large (option vehicle_large_types, default tanks and walkers). The Technical is a light
    transport on the roster: small, unless the table says it is another type."""
    _campaign, forces, url = setup
    squad = unit(forces, "Federation", "Rifle Squad 1")
    extra = {"within_4_unit_ids": [str(squad.id)], "passengers_unit_id": None}
    if vehicle_type:
        extra["vehicle_type"] = vehicle_type
    response = shoot_technical(umpire_api, url, forces, VEHICLE_DICE, **extra)
    assert response.status_code == 201, response.json()
    shot = response.json()["events"][0]["payload"]
    assert (shot["destroyed"], shot["large"]) == (True, large)
    assert shot["nearby"] == [
        {"unit_id": str(squad.id), "marker_before": "", "marker_after": marker}
    ]
    assert participant(squad).marker == marker
    size = "a large vehicle" if large else "a small vehicle"
    assert any(
        f'within 4" of {size} destroyed: Rifle Squad 1' in line
        for line in battle_log(umpire_api, url)
    ), battle_log(umpire_api, url)
