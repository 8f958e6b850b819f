"""Casualty actions through HTTP with table dice: wounds and kills (SG2 P.35-36, P.40), the loss
of a unit leader (P.10), hits on vehicles and their occupants (P.38-39) and surrender (P.53)."""

from __future__ import annotations

import pytest

from battles.models import Participant
from eventlog import store
from rosters.models import Force, Trooper, TrooperRecordEntry, Unit, UnitHistoryEntry, Vehicle
from tests.battles.conftest import members, squads

pytestmark = pytest.mark.django_db


def act(api, battle, name, body):
    return api.post(f"/api/v1/battles/{battle['id']}/actions/{name}/", body)


def ok(response):
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    return event


def refused(api, campaign, battle, name, body, status, code, field=None):
    before = store.last_sequence(campaign.id)
    response = act(api, battle, name, body)
    assert response.status_code == status, response.json()
    assert response.json()["code"] == code
    if field is not None:
        assert response.json()["field"] == field
    assert store.last_sequence(campaign.id) == before
    return response.json()


def statuses(unit):
    return {t.name: t.status for t in members(unit)}


def battle_log(api, battle):
    return [
        line["summary"]
        for line in api.get(f"/api/v1/battles/{battle['id']}/log/").json()["results"]
    ]


def server_job(api, response):
    """The job of a server-dice action, run eagerly: it succeeded, and its events."""
    assert response.status_code == 202, response.json()
    job = api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    return job["events"]


@pytest.fixture
def squad1(forces):
    return squads(forces["Blue"])[0]  # Recon Squad 1: six men in D6 armour, Regular, LV2


@pytest.fixture
def red2(forces):
    return squads(forces["Red"])[1]  # Squad 2: eight men, Green


# --- casualties: allocated by the rules ----------------------------------------------------------


def test_allocated_hits_wound_and_kill_by_impact_against_armour(umpire_api, battle, squad1):
    """P.36 steps 3-4: impact above armour wounds, above twice armour kills; the allocation die
    (D6 for six figures) counts round the squad in roster order. Same armour throughout, so the
    impact and armour dice are rolled first, then one allocation die per wound or kill."""
    men = members(squad1)
    event = ok(
        act(
            umpire_api,
            battle,
            "casualties",
            {
                "unit_id": str(squad1.id),
                "mode": "allocate",
                "hits": 3,
                "impact_die": 10,
                # hit 1: 9 v 4 kill; hit 2: 5 v 3 wound; hit 3: 2 v 5 nothing;
                # allocation: 4 -> the fourth man, 2 -> the second.
                "dice": [9, 4, 5, 3, 2, 5, 4, 2],
            },
        )
    )
    assert event["type"] == "battles.CasualtiesResolved"
    p = event["payload"]
    assert [h["result"] for h in p["hits"]] == ["kill", "wound", "no_effect"]
    assert [h["trooper_id"] for h in p["hits"]] == [str(men[3].id), str(men[1].id), None]
    assert [d["result"] for d in p["dice"]] == [9, 4, 5, 3, 2, 5, 4, 2]
    assert all(d["source"] == "table" for d in p["dice"])
    assert statuses(squad1) == {
        "Cpl Rosa Farrell": "fit",
        "LCpl Rachel Marsh": "wounded",
        "Pte Nadia Wade": "fit",
        "Pte Daniel Merritt": "dead",
        "Pte Neil Walsh": "fit",
        "Pte Tariq Griffin": "fit",
    }
    assert Trooper.objects.get(pk=men[1].id).wounds == 1
    # Each casualty's line carries the dice of his own hit.
    merritt = next(c for c in p["casualties"] if c["trooper_id"] == str(men[3].id))
    assert [d["result"] for d in merritt["dice"]] == [9, 4, 4]
    log = battle_log(umpire_api, battle)
    assert log[-3] == (
        "Recon Squad 1 took 3 potential hits (impact d10, open cover, 1 without effect): "
        "LCpl Rachel Marsh wounded; Pte Daniel Merritt killed. "
        "[d10 9, d6 4, d10 5, d6 3, d10 2, d6 5, d6 4, d6 2; table]"
    )
    assert "LCpl Rachel Marsh wounded. [d10 5, d6 3, d6 2; table]" in log
    record = TrooperRecordEntry.objects.filter(trooper_id=men[3].id).order_by("sequence").last()
    assert record is not None
    assert record.summary == "Killed by fire at Recon in force, turn 1."
    assert str(record.battle_id) == battle["id"]
    assert [d["result"] for d in record.dice] == [9, 4, 4]
    history = UnitHistoryEntry.objects.filter(unit_id=squad1.id).order_by("sequence").last()
    assert history is not None
    assert history.summary == (
        "Casualties at Recon in force, turn 1: LCpl Rachel Marsh wounded; "
        "Pte Daniel Merritt killed."
    )
    participant = Participant.objects.get(battle_id=battle["id"], unit_id=squad1.id)
    assert (participant.confidence, participant.suppression) == ("confident", 0)


def test_two_wounds_on_one_figure_kill_him_and_counting_starts_where_the_umpire_says(
    umpire_api, battle, squad1
):
    """P.36: two WOUNDs on the same figure in one fire resolution kill him. The count starts at
    the most exposed figure (here the last man), then roster order."""
    men = members(squad1)
    event = ok(
        act(
            umpire_api,
            battle,
            "casualties",
            {
                "unit_id": str(squad1.id),
                "mode": "allocate",
                "hits": 2,
                "impact_die": 8,
                "counting_order": [str(men[5].id)],
                # two wounds (5 v 3, 6 v 4), both allocated with a 1: the first man counted.
                "dice": [5, 3, 6, 4, 1, 1],
            },
        )
    )
    (casualty,) = event["payload"]["casualties"]
    assert (casualty["trooper_id"], casualty["wounds"], casualty["status_after"]) == (
        str(men[5].id),
        2,
        "dead",
    )
    assert statuses(squad1)["Pte Tariq Griffin"] == "dead"


def test_soft_cover_shifts_the_armour_die_up(umpire_api, battle, squad1, campaign):
    """P.12: soft cover shifts the armour die one step: D6 armour rolls a D8, so a 7 is a face
    it can show (and with no cover it is refused as a die that cannot show 7)."""
    body = {"unit_id": str(squad1.id), "mode": "allocate", "hits": 1, "impact_die": 10}
    refused(
        umpire_api, campaign, battle, "casualties", {**body, "dice": [9, 7]}, 400, "dice.impossible"
    )
    event = ok(act(umpire_api, battle, "casualties", {**body, "cover": "soft", "dice": [9, 7, 6]}))
    hit = event["payload"]["hits"][0]
    assert (hit["armour_die"], hit["result"]) == (8, "wound")
    assert statuses(squad1)["Pte Tariq Griffin"] == "wounded"


def test_the_leader_hit_is_flagged_for_the_loss_of_unit_leader(umpire_api, battle, squad1):
    men = members(squad1)
    event = ok(
        act(
            umpire_api,
            battle,
            "casualties",
            {
                "unit_id": str(squad1.id),
                "mode": "allocate",
                "hits": 1,
                "impact_die": 10,
                "dice": [10, 1, 1],
            },
        )
    )
    assert event["payload"]["leaders_down"] == [str(men[0].id)]
    assert battle_log(umpire_api, battle)[-2].endswith(
        "Cpl Rosa Farrell led his unit: resolve the loss of its leader (P.10). "
        "[d10 10, d6 1, d6 1; table]"
    )


def test_allocated_casualties_with_server_dice(umpire_api, battle, squad1):
    response = act(
        umpire_api,
        battle,
        "casualties",
        {"unit_id": str(squad1.id), "mode": "allocate", "hits": 4, "impact_die": 10},
    )
    (event,) = server_job(umpire_api, response)
    assert event["type"] == "battles.CasualtiesResolved"
    dice = event["payload"]["dice"]
    assert len(dice) >= 8
    assert {d["source"] for d in dice} == {"server"}


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ({"mode": "allocate", "impact_die": 10, "dice": []}, 400, "action.invalid", "hits"),
        ({"mode": "allocate", "hits": 1, "dice": []}, 400, "action.invalid", "impact_die"),
        ({"mode": "allocate", "hits": 1, "impact_die": 7, "dice": []}, 400, "action.invalid", None),
        ({"mode": "named", "casualties": [], "dice": []}, 400, "action.invalid", "casualties"),
        ({"mode": "named", "hits": 2, "dice": []}, 400, "action.invalid", "hits"),
        ({"mode": "allocate", "hits": 1, "impact_die": 10, "dice": [9]}, 400, "dice.missing", None),
        (
            {"mode": "allocate", "hits": 1, "impact_die": 10, "dice": [1, 2, 3]},
            400,
            "dice.unused",
            None,
        ),
    ],
)
def test_bad_casualty_parameters_are_refused(
    umpire_api, campaign, battle, squad1, body, status, code, field
):
    refused(
        umpire_api,
        campaign,
        battle,
        "casualties",
        {"unit_id": str(squad1.id), **body},
        status,
        code,
        field,
    )


def test_a_unit_not_in_the_battle_is_refused(umpire_api, campaign, battle, forces):
    command = Unit.objects.get(force_id=forces["Blue"].id, kind="command")
    refused(
        umpire_api,
        campaign,
        battle,
        "casualties",
        {"unit_id": str(command.id), "mode": "named", "casualties": [], "dice": []},
        400,
        "battle.not_a_participant",
        "unit_id",
    )


# --- casualties: named by the umpire -------------------------------------------------------------


def test_named_casualties_need_no_dice(umpire_api, battle, squad1):
    men = members(squad1)
    event = ok(
        act(
            umpire_api,
            battle,
            "casualties",
            {
                "unit_id": str(squad1.id),
                "mode": "named",
                "casualties": [
                    {"trooper_id": str(men[4].id), "result": "wounded"},
                    {"trooper_id": str(men[5].id), "result": "killed"},
                ],
                "dice": [],
            },
        )
    )
    assert event["payload"]["dice"] == []
    assert statuses(squad1)["Pte Neil Walsh"] == "wounded"
    assert statuses(squad1)["Pte Tariq Griffin"] == "dead"
    assert battle_log(umpire_api, battle)[-3:] == [
        "Recon Squad 1, casualties named by the umpire: Pte Neil Walsh wounded; "
        "Pte Tariq Griffin killed.",
        "Pte Neil Walsh wounded.",
        "Pte Tariq Griffin killed.",
    ]


def test_a_second_wound_leaves_a_casualty_as_he_is_by_default(umpire_api, battle, squad1):
    """P.36 / SG2-C: one wound on a man already a casualty changes nothing unless the option
    rewound_kills is set."""
    walsh = members(squad1)[4]
    body = {
        "unit_id": str(squad1.id),
        "mode": "named",
        "casualties": [{"trooper_id": str(walsh.id), "result": "wounded"}],
        "dice": [],
    }
    ok(act(umpire_api, battle, "casualties", body))
    ok(act(umpire_api, battle, "casualties", body))
    assert Trooper.objects.get(pk=walsh.id).status == "wounded"
    assert battle_log(umpire_api, battle)[-1] == "Pte Neil Walsh hit again but still wounded."


def test_named_casualty_refusals(umpire_api, campaign, battle, squad1, red2):
    men = members(squad1)

    def named(*entries):
        return {
            "unit_id": str(squad1.id),
            "mode": "named",
            "casualties": [{"trooper_id": str(t), "result": r} for t, r in entries],
            "dice": [],
        }

    refused(
        umpire_api, campaign, battle, "casualties",
        named((members(red2)[0].id, "wounded")),
        400, "casualties.not_in_unit", "casualties.0.trooper_id",
    )  # fmt: skip
    refused(
        umpire_api, campaign, battle, "casualties",
        named((men[1].id, "wounded"), (men[1].id, "killed")),
        400, "casualties.named_twice", "casualties.1",
    )  # fmt: skip
    ok(act(umpire_api, battle, "casualties", named((men[2].id, "killed"))))
    refused(
        umpire_api, campaign, battle, "casualties",
        named((men[3].id, "wounded"), (men[2].id, "wounded")),
        409, "casualties.trooper_dead", "casualties.1.trooper_id",
    )  # fmt: skip


def test_named_casualties_with_server_dice(umpire_api, battle, squad1):
    men = members(squad1)
    response = act(
        umpire_api,
        battle,
        "casualties",
        {
            "unit_id": str(squad1.id),
            "mode": "named",
            "casualties": [{"trooper_id": str(men[1].id), "result": "wounded"}],
        },
    )
    (event,) = server_job(umpire_api, response)
    assert event["payload"]["dice"] == []  # no power armour: nothing to roll
    assert Trooper.objects.get(pk=men[1].id).status == "wounded"


# --- leader_casualty -----------------------------------------------------------------------------


def test_a_wounded_leader_suppresses_tests_and_hands_over(umpire_api, battle, squad1):
    """P.10: one suppression marker, a confidence test at the leader-casualty threat level
    (MEDIUM 3; LV2 + 3 = 5 to beat on the Regular D8), then the next in seniority (no second in
    command: roster order) takes over with a D6 against LV2: 1-2 one level worse."""
    men = members(squad1)
    event = ok(
        act(
            umpire_api,
            battle,
            "leader_casualty",
            {"unit_id": str(squad1.id), "result": "wounded", "dice": [6, 1]},
        )
    )
    p = event["payload"]
    assert event["type"] == "battles.LeaderCasualtyResolved"
    assert (p["threat_level"], p["passed"], p["successor_id"]) == (3, True, str(men[1].id))
    assert [d["purpose"] for d in p["dice"]] == [
        "confidence test",
        "leadership of the new unit leader",
    ]
    assert Trooper.objects.get(pk=men[0].id).status == "wounded"
    assert Unit.objects.get(pk=squad1.id).leadership == 3
    participant = Participant.objects.get(battle_id=battle["id"], unit_id=squad1.id)
    assert (participant.confidence, participant.suppression) == ("confident", 1)
    history = UnitHistoryEntry.objects.filter(unit_id=squad1.id).order_by("sequence").last()
    assert history is not None
    assert history.summary == (
        "Leadership 2 -> 3: LCpl Rachel Marsh took over after Cpl Rosa Farrell was wounded."
    )
    assert history.changes == {"leadership": [2, 3]}
    assert battle_log(umpire_api, battle)[-1] == (
        "Cpl Rosa Farrell, leading Recon Squad 1, was wounded: the unit is suppressed "
        "(1 marker), passed a confidence test at threat level 3: stays confident; "
        "LCpl Rachel Marsh takes over with leadership 3 (was 2). [d8 6, d6 1; table]"
    )
    successor_record = TrooperRecordEntry.objects.filter(trooper_id=men[1].id).last()
    assert successor_record is not None
    assert successor_record.summary.startswith("Took command of Recon Squad 1")


def test_a_badly_failed_test_drops_two_levels_and_the_chain_goes_on(umpire_api, battle, squad1):
    """P.20: a score of half the target or less loses two levels. A second loss takes the acting
    leader (the successor), and the next fit man by roster order follows him (P.10)."""
    men = members(squad1)
    first = ok(
        act(
            umpire_api,
            battle,
            "leader_casualty",
            {
                "unit_id": str(squad1.id),
                "result": "killed",
                "successor_id": str(men[2].id),
                "dice": [2, 6],
            },
        )
    )["payload"]
    assert (first["confidence_after"], first["leadership_after"]) == ("shaken", 1)
    assert first["successor_id"] == str(men[2].id)
    second = ok(
        act(
            umpire_api,
            battle,
            "leader_casualty",
            {"unit_id": str(squad1.id), "result": "wounded", "dice": [8, 3]},
        )
    )["payload"]
    assert second["leader_id"] == str(men[2].id)
    assert second["successor_id"] == str(men[1].id)
    assert (second["suppression_after"], second["leadership_after"]) == (2, 1)
    assert statuses(squad1)["Cpl Rosa Farrell"] == "dead"
    assert statuses(squad1)["Pte Nadia Wade"] == "wounded"


def test_a_leader_who_already_fell_has_only_his_command_resolved(umpire_api, battle, squad1):
    men = members(squad1)
    ok(
        act(
            umpire_api,
            battle,
            "casualties",
            {
                "unit_id": str(squad1.id),
                "mode": "named",
                "casualties": [{"trooper_id": str(men[0].id), "result": "wounded"}],
                "dice": [],
            },
        )
    )
    event = ok(
        act(
            umpire_api,
            battle,
            "leader_casualty",
            {
                "unit_id": str(squad1.id),
                "other_circumstances": ["casualties_from_fire"],
                "dice": [7, 4],
            },
        )
    )
    p = event["payload"]
    assert p["casualty"] is None
    assert p["circumstances"] == ["leader_casualty", "casualties_from_fire"]
    assert p["untreated_casualties"] == 1
    assert Trooper.objects.get(pk=men[0].id).wounds == 1  # counted once, by the first action


def test_leader_casualty_refusals(umpire_api, campaign, battle, squad1):
    men = members(squad1)
    unit = str(squad1.id)
    refused(
        umpire_api, campaign, battle, "leader_casualty",
        {"unit_id": unit, "dice": []}, 400, "action.invalid", "result",
    )  # fmt: skip
    refused(
        umpire_api, campaign, battle, "leader_casualty",
        {"unit_id": unit, "result": "wounded", "successor_id": str(men[0].id), "dice": [1, 1]},
        400, "leader.successor_is_leader", "successor_id",
    )  # fmt: skip
    ok(
        act(
            umpire_api,
            battle,
            "casualties",
            {
                "unit_id": unit,
                "mode": "named",
                "casualties": [{"trooper_id": str(men[3].id), "result": "killed"}],
                "dice": [],
            },
        )
    )
    refused(
        umpire_api, campaign, battle, "leader_casualty",
        {"unit_id": unit, "result": "wounded", "successor_id": str(men[3].id), "dice": [1, 1]},
        409, "leader.successor_unfit", "successor_id",
    )  # fmt: skip
    ok(
        act(
            umpire_api,
            battle,
            "leader_casualty",
            {"unit_id": unit, "result": "killed", "dice": [8, 4]},
        )
    )
    # The acting leader is now the successor, who is fit: a result is needed for him.
    ok(
        act(
            umpire_api,
            battle,
            "leader_casualty",
            {"unit_id": unit, "result": "wounded", "dice": [8, 4]},
        )
    )
    refused(
        umpire_api, campaign, battle, "casualties",
        {"unit_id": unit, "mode": "named", "dice": [],
         "casualties": [{"trooper_id": str(men[0].id), "result": "killed"}]},
        409, "casualties.trooper_dead", "casualties.0.trooper_id",
    )  # fmt: skip


def test_leader_already_down_refuses_a_second_result(umpire_api, campaign, battle, squad1):
    men = members(squad1)
    ok(
        act(
            umpire_api,
            battle,
            "casualties",
            {
                "unit_id": str(squad1.id),
                "mode": "named",
                "casualties": [{"trooper_id": str(men[0].id), "result": "wounded"}],
                "dice": [],
            },
        )
    )
    refused(
        umpire_api, campaign, battle, "leader_casualty",
        {"unit_id": str(squad1.id), "result": "killed", "dice": [1, 1]},
        409, "leader.already_down", "result",
    )  # fmt: skip


def test_leader_casualty_with_server_dice(umpire_api, battle, squad1):
    response = act(
        umpire_api, battle, "leader_casualty", {"unit_id": str(squad1.id), "result": "killed"}
    )
    (event,) = server_job(umpire_api, response)
    dice = event["payload"]["dice"]
    assert [d["die"] for d in dice] == [8, 6]
    assert {d["source"] for d in dice} == {"server"}
    assert Trooper.objects.get(pk=members(squad1)[0].id).status == "dead"


# --- vehicles and power armour -------------------------------------------------------------------

ARMOUR_ROSTER = """
name: Blue mechanised section
side: Blue
ruleset: sg2
units:
  - name: Mechanised Section
    kind: platoon
    units:
      - name: Two-One Crew
        kind: vehicle_crew
        quality: regular
        leadership: 2
        fatigue: fresh
        mission_motivation: medium
        troopers:
          - {name: Sgt Ada Quell, role: leader, armour: partial light armour, armour_die: 6}
          - {name: Tpr Owen Pike, role: crew, armour: partial light armour, armour_die: 6}
        vehicles:
          - {name: Two-One, class: FV701 Hoplite APC, size: 3, capacity: 10, armour: 2}
      - name: Power Squad
        kind: squad
        quality: veteran
        leadership: 2
        fatigue: fresh
        mission_motivation: medium
        troopers:
          - name: Sgt Iver Vale
            role: leader
            armour: light power armour
            armour_die: 10
            power_armour: true
          - {name: Pte Mira Holm, armour: light power armour, armour_die: 10, power_armour: true}
          - {name: Pte Cole Brand, armour: light power armour, armour_die: 10, power_armour: true}
"""


@pytest.fixture
def mech_battle(umpire_api, campaign, plan_body, forces):
    posted = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": ARMOUR_ROSTER, "source": "test"}
    )
    assert posted.status_code == 201, posted.json()
    mech = Force.objects.get(campaign_id=campaign.id, name="Blue mechanised section")
    plan_body["sides"][0]["force_ids"].append(str(mech.id))
    battle = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/battles/", plan_body).json()
    units = [
        str(u.id)
        for u in Unit.objects.filter(force_id=mech.id).exclude(kind="platoon").order_by("order")
    ] + [str(squads(forces["Red"])[0].id)]
    committed = umpire_api.post(f"/api/v1/battles/{battle['id']}/commit/", {"unit_ids": units})
    assert committed.status_code == 200, committed.json()
    return umpire_api.post(f"/api/v1/battles/{battle['id']}/start/").json()


@pytest.fixture
def apc():
    return Vehicle.objects.get(name="Two-One")


@pytest.fixture
def crew():
    return members(Unit.objects.get(name="Two-One Crew"))


@pytest.fixture
def power_squad():
    return Unit.objects.get(name="Power Squad")


def hit(apc, occupants=(), **body):
    return {
        "vehicle_id": str(apc.id),
        "impact_die": 12,
        "impact_multiplier": 3,
        "suspension": "tracked",
        "weapon_size_class": 3,
        "occupant_ids": [str(t.id) for t in occupants],
        **body,
    }


def test_a_penetrating_hit_disables_and_the_occupants_roll(
    umpire_api, mech_battle, apc, crew, power_squad
):
    """P.38: impact 6x3 = 18 against armour 5x2 = 10 is above it but not above twice it:
    DISABLED. P.39: each occupant must roll above the weapon's size class (3) on his armour die;
    casualties roll D6, 1-3 dead, 4-6 wounded; a power-armoured casualty rolls P.40 at once
    (3: stabilised by his suit)."""
    vale = members(power_squad)[0]
    holm = members(power_squad)[1]
    commander = crew[0]
    event = ok(
        act(
            umpire_api,
            mech_battle,
            "vehicle_hit",
            # impact 6, armour 5; armour rolls: Quell 2, Vale 3, Holm 9;
            # severity: Quell 5, Vale 4; P.40 for Vale: 3.
            hit(apc, [commander, vale, holm], dice=[6, 5, 2, 3, 9, 5, 4, 3]),
        )
    )
    p = event["payload"]
    assert (p["impact_score"], p["armour_score"], p["damage"]) == (18, 10, "disabled")
    assert (p["state_before"], p["state_after"], p["save_above"]) == ("operational", "disabled", 3)
    assert Vehicle.objects.get(pk=apc.id).state == "disabled"
    assert Trooper.objects.get(pk=commander.id).status == "wounded"
    assert Trooper.objects.get(pk=vale.id).status == "stabilised"
    assert Trooper.objects.get(pk=holm.id).status == "fit"
    assert set(p["leaders_down"]) == {str(commander.id), str(vale.id)}
    vale_casualty = next(c for c in p["casualties"] if c["trooper_id"] == str(vale.id))
    assert [d["result"] for d in vale_casualty["dice"]] == [3, 4, 3]
    log = battle_log(umpire_api, mech_battle)
    assert log[-3] == (
        "Two-One hit at Recon in force, turn 1: disabled (impact 18 against armour 10). "
        "Occupants needed armour above 3: Sgt Ada Quell wounded; Sgt Iver Vale wounded and "
        'stabilised by his suit (P.40 roll 3). The occupants bail out 6", suppressed unless '
        "they pass a confidence test at threat level 2 to stay. Sgt Ada Quell and Sgt Iver "
        "Vale led their units: resolve the loss of each unit's leader (P.10). "
        "[d12 6, d12 5, d6 2, d10 3, d10 9, d6 5, d6 4, d6 3; table]"
    )
    assert (
        "Sgt Iver Vale wounded and stabilised by his suit (P.40 roll 3). [d10 3, d6 4, d6 3; table]"
        in log
    )
    history = UnitHistoryEntry.objects.filter(unit_id=apc.unit_id).order_by("sequence").last()
    assert history is not None
    assert history.summary == (
        "Two-One hit at Recon in force, turn 1: disabled (impact 18 against armour 10). "
        "Casualties: Sgt Ada Quell wounded."
    )


def test_a_destroyed_vehicle_doubles_the_size_class_and_is_hit_no_more(
    umpire_api, campaign, mech_battle, apc, crew, power_squad
):
    """P.38: impact 10x3 = 30 above twice 5x2: DESTROYED. P.39: above 2x3 = 6 to survive, so
    D6 armour cannot: a casualty without a roll. D10 armour rolls 8 and is safe."""
    vale = members(power_squad)[0]
    event = ok(
        act(umpire_api, mech_battle, "vehicle_hit", hit(apc, [crew[1], vale], dice=[10, 5, 8, 2]))
    )
    p = event["payload"]
    assert (p["damage"], p["save_above"]) == ("destroyed", 6)
    assert [o["armour_roll"] for o in p["occupants"]] == [None, 8]
    assert Trooper.objects.get(pk=crew[1].id).status == "dead"
    assert Trooper.objects.get(pk=vale.id).status == "fit"
    assert Vehicle.objects.get(pk=apc.id).state == "destroyed"
    refused(
        umpire_api, campaign, mech_battle, "vehicle_hit", hit(apc, dice=[1, 1, 1]),
        409, "vehicle.destroyed", "vehicle_id",
    )  # fmt: skip
    refused(
        umpire_api, campaign, mech_battle, "casualties",
        {"unit_id": str(crew[1].unit_id), "mode": "named", "dice": [],
         "casualties": [{"trooper_id": str(crew[1].id), "result": "wounded"}]},
        409, "casualties.trooper_dead", "casualties.0.trooper_id",
    )  # fmt: skip


def test_non_penetrating_hits_add_markers(umpire_api, mech_battle, apc):
    """P.39: a non-penetrating hit lands by D6: 1-2 suspension (impact again against the
    tracked suspension D10: higher IMMOBILISES), 6 systems (SYS). IMM and SYS add up; the roster
    shows the worse, the event keeps both markers."""
    first = ok(act(umpire_api, mech_battle, "vehicle_hit", hit(apc, dice=[2, 5, 1, 7, 4])))
    assert (first["payload"]["location"], first["payload"]["damage"]) == (
        "suspension",
        "immobilised",
    )
    assert Vehicle.objects.get(pk=apc.id).state == "immobilised"
    second = ok(act(umpire_api, mech_battle, "vehicle_hit", hit(apc, dice=[1, 6, 6])))
    assert second["payload"]["damage_before"] == ["immobilised"]
    assert second["payload"]["damage_after"] == ["immobilised", "systems_damaged"]
    assert Vehicle.objects.get(pk=apc.id).state == "systems_damaged"
    third = ok(act(umpire_api, mech_battle, "vehicle_hit", hit(apc, dice=[1, 6, 4])))
    assert third["payload"]["damage"] is None
    assert third["payload"]["damage_after"] == ["immobilised", "systems_damaged"]
    assert "no damage (non-penetrating, hull)" in battle_log(umpire_api, mech_battle)[-1]


def test_vehicle_hit_refusals(umpire_api, campaign, mech_battle, apc, crew, forces):
    refused(
        umpire_api, campaign, mech_battle, "vehicle_hit",
        {**hit(apc, dice=[]), "vehicle_id": str(crew[0].id)},
        400, "vehicle.not_found", "vehicle_id",
    )  # fmt: skip
    refused(
        umpire_api, campaign, mech_battle, "vehicle_hit", hit(apc, [crew[0], crew[0]], dice=[]),
        400, "casualties.named_twice", "occupant_ids.1",
    )  # fmt: skip
    blue_squad = squads(forces["Blue"])[0]  # not committed to this battle
    refused(
        umpire_api, campaign, mech_battle, "vehicle_hit",
        hit(apc, [members(blue_squad)[0]], dice=[]),
        400, "battle.not_a_participant", "occupant_ids.0",
    )  # fmt: skip
    refused(
        umpire_api, campaign, mech_battle, "vehicle_hit",
        {**hit(apc, dice=[]), "suspension": "legs"}, 400, "action.invalid", "suspension",
    )  # fmt: skip


def test_vehicle_hit_with_server_dice(umpire_api, mech_battle, apc, crew):
    response = act(umpire_api, mech_battle, "vehicle_hit", hit(apc, crew))
    (event,) = server_job(umpire_api, response)
    assert event["type"] == "battles.VehicleHit"
    assert {d["source"] for d in event["payload"]["dice"]} == {"server"}
    assert Vehicle.objects.get(pk=apc.id).state == event["payload"]["state_after"]


def test_power_armour_rolls_at_once_when_hit_without_being_killed(
    umpire_api, mech_battle, power_squad
):
    """P.40: D6 at once for a power-armoured casualty not killed: 5 the wearer is unhurt but
    the suit is wrecked; 6 the suit reboots and he is back in action."""
    men = members(power_squad)
    event = ok(
        act(
            umpire_api,
            mech_battle,
            "casualties",
            {
                "unit_id": str(power_squad.id),
                "mode": "named",
                "casualties": [
                    {"trooper_id": str(men[1].id), "result": "wounded"},
                    {"trooper_id": str(men[2].id), "result": "wounded"},
                ],
                "dice": [5, 6],
            },
        )
    )
    figures = [c["figure_after"] for c in event["payload"]["casualties"]]
    assert figures == ["suit_disabled", "fit"]
    assert statuses(power_squad) == {
        "Sgt Iver Vale": "fit",
        "Pte Mira Holm": "fit",
        "Pte Cole Brand": "fit",
    }
    assert Trooper.objects.get(pk=men[1].id).wounds == 0
    log = battle_log(umpire_api, mech_battle)
    assert "Pte Mira Holm unhurt but his suit is wrecked (P.40 roll 5). [d6 5; table]" in log
    assert "Pte Cole Brand back in action as his suit rebooted (P.40 roll 6). [d6 6; table]" in log


def test_a_power_armoured_leader_saved_by_his_suit_keeps_command(
    umpire_api, mech_battle, power_squad
):
    vale = members(power_squad)[0]
    event = ok(
        act(
            umpire_api,
            mech_battle,
            "leader_casualty",
            {"unit_id": str(power_squad.id), "result": "wounded", "dice": [6]},
        )
    )
    p = event["payload"]
    assert (p["lost"], p["successor_id"], p["suppression_after"]) == (False, None, 0)
    assert Trooper.objects.get(pk=vale.id).status == "fit"
    assert Unit.objects.get(pk=power_squad.id).leadership == 2


def test_named_power_armour_casualty_with_server_dice(umpire_api, mech_battle, power_squad):
    men = members(power_squad)
    response = act(
        umpire_api,
        mech_battle,
        "casualties",
        {
            "unit_id": str(power_squad.id),
            "mode": "named",
            "casualties": [{"trooper_id": str(men[2].id), "result": "wounded"}],
        },
    )
    (event,) = server_job(umpire_api, response)
    (die,) = event["payload"]["dice"]
    assert (die["die"], die["source"]) == (6, "server")


# --- surrender -----------------------------------------------------------------------------------


def test_a_surrendering_unit_is_taken_prisoner(umpire_api, battle, red2):
    """P.53: the unit's men, fit and wounded, are captured; the dead stay dead; escorting them
    to the rear takes one guard per six prisoners."""
    men = members(red2)
    ok(
        act(
            umpire_api,
            battle,
            "casualties",
            {
                "unit_id": str(red2.id),
                "mode": "named",
                "casualties": [
                    {"trooper_id": str(men[6].id), "result": "wounded"},
                    {"trooper_id": str(men[7].id), "result": "killed"},
                ],
                "dice": [],
            },
        )
    )
    event = ok(
        act(
            umpire_api,
            battle,
            "surrender",
            {"unit_id": str(red2.id), "prisoners_taken_by": "Blue", "dice": []},
        )
    )
    p = event["payload"]
    assert (len(p["captured"]), p["escort_guards"], p["dice"]) == (7, 2, [])
    assert [t.status for t in members(red2)] == ["captured"] * 7 + ["dead"]
    participant = Participant.objects.get(battle_id=battle["id"], unit_id=red2.id)
    assert participant.status == "surrendered"
    log = battle_log(umpire_api, battle)
    assert log[-1].startswith("Squad 2 surrendered to Blue: Cpl Marcus Calloway, ")
    assert log[-1].endswith(
        "taken prisoner. Escorting them to the rear takes 2 guards (1 per 6 prisoners, P.53)."
    )
    record = TrooperRecordEntry.objects.filter(trooper_id=men[6].id).last()
    assert record is not None
    assert record.summary == (
        "Captured (wounded) when Squad 2 surrendered to Blue at Recon in force, turn 1."
    )


def test_surrender_refusals(umpire_api, campaign, battle, red2):
    unit = str(red2.id)
    refused(
        umpire_api, campaign, battle, "surrender",
        {"unit_id": unit, "prisoners_taken_by": "Red", "dice": []},
        400, "surrender.bad_captor", "prisoners_taken_by",
    )  # fmt: skip
    refused(
        umpire_api, campaign, battle, "surrender",
        {"unit_id": unit, "prisoners_taken_by": "Green", "dice": []},
        400, "surrender.bad_captor", "prisoners_taken_by",
    )  # fmt: skip
    refused(
        umpire_api, campaign, battle, "surrender", {"unit_id": unit, "dice": [3]},
        400, "dice.unused",
    )  # fmt: skip
    ok(act(umpire_api, battle, "surrender", {"unit_id": unit, "dice": []}))
    refused(
        umpire_api, campaign, battle, "surrender", {"unit_id": unit, "dice": []},
        409, "battle.unit_gone", "unit_id",
    )  # fmt: skip
    refused(
        umpire_api, campaign, battle, "casualties",
        {"unit_id": unit, "mode": "allocate", "hits": 1, "impact_die": 10, "dice": [9, 1, 1]},
        409, "battle.unit_gone", "unit_id",
    )  # fmt: skip


def test_surrender_with_server_dice(umpire_api, battle, red2):
    response = act(umpire_api, battle, "surrender", {"unit_id": str(red2.id)})
    (event,) = server_job(umpire_api, response)
    assert event["payload"]["dice"] == []
    assert {t.status for t in members(red2)} == {"captured"}


def test_casualty_events_rebuild_to_the_same_rows(umpire_api, campaign, battle, squad1):
    """The folds are pure: rebuilding the campaign from its log gives the rows the inline path
    wrote."""
    from eventlog.projections import dump_rows, rebuild

    ok(
        act(
            umpire_api,
            battle,
            "casualties",
            {"unit_id": str(squad1.id), "mode": "allocate", "hits": 2, "impact_die": 10,
             "dice": [9, 4, 5, 3, 3, 2]},
        )
    )  # fmt: skip
    ok(
        act(
            umpire_api,
            battle,
            "leader_casualty",
            {"unit_id": str(squad1.id), "result": "wounded", "dice": [6, 1]},
        )
    )
    ok(act(umpire_api, battle, "surrender", {"unit_id": str(squad1.id), "dice": []}))
    inline = dump_rows(campaign.id)
    rebuild(campaign.id)
    assert dump_rows(campaign.id) == inline
