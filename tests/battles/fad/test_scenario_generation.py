"""A Fast and Dirty battle generated from the scenario tables, through HTTP (FaD p.59-64).

The rifle platoon of ``examples/fad-rifle-platoon.yaml`` (one platoon: a command squad and three
rifle squads) against a small insurgent force (a militia squad and a sniper, no platoon: it
counts as one, p.60). Every expected value is worked out by hand from the tables of p.59-63.
"""

from __future__ import annotations

import json

import pytest

from campaigns import services as campaign_services
from eventlog import jobs, store
from rosters.models import Force, Trooper, Unit, Vehicle
from tests.battles.conftest import EXAMPLES
from tests.battles.helpers import assert_rebuild_keeps_rows
from tests.battles.test_after_action_fad import INSURGENTS, PLATOON
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

SEED = "5eed" * 16


def _load_forces(api, campaign) -> dict[str, Force]:
    for source, text in ((PLATOON, (EXAMPLES / PLATOON).read_text()), ("insurgents", INSURGENTS)):
        response = api.post(
            f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text, "source": source}
        )
        assert response.status_code == 201, response.json()
    return {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}


@pytest.fixture
def campaign(umpire):
    return campaign_for(umpire, name="Kessler valley", ruleset="fad")


@pytest.fixture
def forces(umpire_api, campaign):
    return _load_forces(umpire_api, campaign)


def unit(force, name: str) -> Unit:
    return Unit.objects.get(force_id=force.id, name=name)


def generate_url(campaign) -> str:
    return f"/api/v1/campaigns/{campaign.id}/battles/generate/"


def body(
    forces, *, fed_recon=(), ins_recon=(), dice=None, name="Valley road", day=2, **fed
) -> dict:
    request = {
        "name": name,
        "day": day,
        "sides": [
            {
                "side": "Federation",
                "force_ids": [str(forces["Federation"].id)],
                "stance": "offensive",
                "attitude": "aggressive",
                "mission_bonuses": ["assault"],
                "recon_unit_ids": [str(u.id) for u in fed_recon],
                **fed,
            },
            {
                "side": "Insurgents",
                "force_ids": [str(forces["Insurgents"].id)],
                "stance": "defensive",
                "attitude": "passive",
                "recon_unit_ids": [str(u.id) for u in ins_recon],
            },
        ],
    }
    if dice is not None:
        request["dice"] = dice
    return request


# Federation: RP 1 platoon + 2 offensive + 0 aggressive + 2 for a recon squad = 5; Insurgents:
# 1 + 0 defensive - 1 passive + 2 = 2. Edge: 2 + 5 = 7 against 3 + 2 = 5, the Federation chooses.
EDGE = [2, 3]
# Federation's Mission Table: assault 5 + 2 (offensive) + 1 (aggressive) + 1 (its bonus) = 9.
FED_MISSIONS = [5, 1, 1, 1, 1, 1, 1, 1]
# Insurgents': hold 6 + 2 (defensive) + 2 (passive) = 10.
INS_MISSIONS = [1, 1, 6, 1, 1, 1, 1, 1]
# Rifle Squad 1 rolls 1: destroyed in an ambush; the Militia Squad 3: delayed to turn 2.
RECON = [1, 3]


def refused(api, campaign, method, path, request, status: int, code: str) -> dict:
    before = store.last_sequence(campaign.id)
    response = getattr(api, method)(path, request)
    assert response.status_code == status, response.json()
    assert response.json()["code"] == code, response.json()
    assert store.last_sequence(campaign.id) == before
    return response.json()


def log_lines(api, battle_id) -> list[dict]:
    return api.get(f"/api/v1/battles/{battle_id}/log/").json()["results"]


def test_a_generated_battle_plans_each_sides_mission_and_keeps_every_die_p59_p63(
    umpire_api, campaign, forces
):
    fed, ins = forces["Federation"], forces["Insurgents"]
    squad1, militia = unit(fed, "Rifle Squad 1"), unit(ins, "Militia Squad")
    dice = EDGE + FED_MISSIONS + INS_MISSIONS + RECON
    response = umpire_api.post(
        generate_url(campaign),
        body(forces, fed_recon=[squad1], ins_recon=[militia], dice=dice),
    )
    assert response.status_code == 201, response.json()
    battle = response.json()
    assert battle["scenario"] == (
        "FaD scenario generation (p.59-63): Federation Assault, Insurgents Hold"
    )
    cards = {side["side"]: side["mission"] for side in battle["sides"]}
    assert cards["Federation"]["objectives"] == ["one far objective, declared before the battle"]
    assert cards["Federation"]["victory_conditions"].startswith(
        'Assault (FaD p.62): Occupy the declared far objective and keep every enemy more than 8"'
    )
    assert (
        "Bonus: One Assault Troops and one Hardened trait."
        in (cards["Federation"]["victory_conditions"])
    )
    assert cards["Insurgents"]["objectives"] == ["both near objectives"]
    assert '15"' in cards["Insurgents"]["victory_conditions"]

    generated = next(
        e for e in store.read(campaign.id, types=["battles.FadScenarioGenerated"])
    ).payload
    assert [d["result"] for d in generated["dice"]] == dice
    assert all(d["source"] == "table" for d in generated["dice"])
    assert generated["edge_chosen_by"] == "Federation"
    f, i = generated["sides"]
    assert (f["recon_points"], i["recon_points"]) == (5, 2)
    assert (f["mission"], i["mission"]) == ("assault", "hold")
    assert f["mission_totals"]["assault"] == 9
    assert i["mission_totals"]["hold"] == 10
    assert (f["deployment_depth"], i["deployment_depth"]) == (6, 18)
    assert (f["artillery_calls"], i["field_defences"]) == (2, 6)
    assert [(r["unit_id"], r["fate"]) for r in f["recon"]] == [(str(squad1.id), "destroyed")]
    assert [(r["unit_id"], r["fate"]) for r in i["recon"]] == [(str(militia.id), "delayed")]
    # Markers (p.61): the Federation 5 Dummy and 4 - 1 True; the Insurgents 5 - 2 Dummy
    # (Defensive, per platoon) and 2 - 1 True. The Federation, with more, places first.
    assert (f["dummy_markers"], f["true_markers"]) == (5, 3)
    assert (i["dummy_markers"], i["true_markers"]) == (3, 1)
    assert generated["first_to_place"] == "Federation"
    assert generated["placement_dice"] == []

    # The squad ambushed on recon is this battle's loss: committed, every figure killed.
    detail = umpire_api.get(f"/api/v1/battles/{battle['id']}/").json()
    assert [p["unit_name"] for p in detail["participants"]] == ["Rifle Squad 1"]
    statuses = set(Trooper.objects.filter(unit_id=squad1.id).values_list("status", flat=True))
    assert statuses == {"dead"}
    assert set(Trooper.objects.filter(unit_id=militia.id).values_list("status", flat=True)) == {
        "fit"
    }
    assert set(Vehicle.objects.filter(unit_id=militia.id).values_list("state", flat=True)) == {
        "operational"
    }

    summaries = [line["summary"] for line in log_lines(umpire_api, battle["id"])]
    text = "\n".join(summaries)
    assert "Battle 1 generated from the scenario tables (FaD p.59-63). Federation chooses" in text
    assert "[d6 2, d6 3; table]" in text
    assert "Federation: offensive stance, aggressive attitude, 5 Recon Points" in text
    assert "assault 9" in text
    assert (
        "Rifle Squad 1 (Federation) returns from recon duty: 1 = 1, destroyed in an ambush" in text
    )
    assert "Militia Squad (Insurgents) returns from recon duty: 3 = 3, delayed: it enters" in text
    assert "Federation places first" in text
    assert "Mission for Insurgents: Hold. Bonus: Three field defences" in text
    assert_rebuild_keeps_rows()


def test_the_dice_prompt_names_every_die_in_order(umpire_api, campaign, forces):
    request = body(forces, fed_recon=[unit(forces["Federation"], "Rifle Squad 2")])
    response = umpire_api.get(
        generate_url(campaign),
        {"sides": json.dumps(request["sides"]), "name": "Valley road", "day": 2},
    )
    assert response.status_code == 200, response.json()
    purposes = [d["purpose"] for d in response.json()["dice"]]
    assert purposes[:2] == [
        "Federation: 1d6 + Recon Points for the choice of table edge",
        "Insurgents: 1d6 + Recon Points for the choice of table edge",
    ]
    assert purposes[2] == "Federation: Mission Table, assault"
    assert purposes[17] == "Insurgents: Mission Table, sweep"


def test_refusals_append_nothing(umpire, umpire_api, campaign, forces):
    url = generate_url(campaign)
    fed = forces["Federation"]
    squads = [unit(fed, f"Rifle Squad {n}") for n in (1, 2)]
    refused(
        umpire_api, campaign, "post", url, body(forces, fed_recon=squads), 422,
        "scenario.recon_too_many",
    )  # fmt: skip
    command = unit(fed, "Platoon Command Squad")
    refused(
        umpire_api, campaign, "post", url, body(forces, fed_recon=[command]), 422,
        "scenario.recon_not_a_platoon_squad",
    )  # fmt: skip
    refused(
        umpire_api, campaign, "post", url,
        body(forces, mission_bonuses=["assault", "sweep", "hold"]), 400, "scenario.invalid",
    )  # fmt: skip
    refused(
        umpire_api, campaign, "post", url,
        body(forces, fed_recon=[unit(forces["Insurgents"], "Sniper")]), 400,
        "scenario.recon_unit_unknown",
    )  # fmt: skip
    Unit.objects.filter(pk=squads[0].pk).update(resolve="reluctant")
    refused(
        umpire_api, campaign, "post", url, body(forces, fed_recon=[squads[0]]), 422,
        "scenario.recon_barred",
    )  # fmt: skip
    sg2 = campaign_for(umpire, name="Elsewhere")
    refused(
        umpire_api, sg2, "post", generate_url(sg2), body(forces), 422,
        "scenario.not_fast_and_dirty",
    )  # fmt: skip


def test_the_server_rolls_the_scenario_in_a_job(umpire_api, campaign, forces):
    squad2 = unit(forces["Federation"], "Rifle Squad 2")
    response = umpire_api.post(generate_url(campaign), body(forces, fed_recon=[squad2]))
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    types = [event["type"] for event in job["events"]]
    assert types[:2] == ["battles.BattlePlanned", "battles.FadScenarioGenerated"]
    generated = job["events"][1]["payload"]
    assert all(d["source"] == "server" for d in generated["dice"])
    # Two edge dice (or more on ties), sixteen Mission Table dice, one recon die.
    assert len(generated["dice"]) >= 2 + 16 + (0 if generated["escalating_engagement"] else 1)


# --- the random campaign (FaD p.64) --------------------------------------------------------------


def _fight(api, battle_id, forces) -> None:
    """Commit every unit not yet in the battle, start it and end it."""
    detail = api.get(f"/api/v1/battles/{battle_id}/").json()
    already = {p["unit_id"] for p in detail["participants"]}
    units = [
        str(u.id)
        for side in ("Federation", "Insurgents")
        for u in Unit.objects.filter(force_id=forces[side].id).exclude(kind="platoon")
        if str(u.id) not in already
    ]
    url = f"/api/v1/battles/{battle_id}/"
    assert api.post(f"{url}commit/", {"unit_ids": units}).status_code == 200
    assert api.post(f"{url}start/").status_code == 200
    assert api.post(f"{url}end/", {"winner": "Federation"}).status_code == 200


def _random_campaign(umpire, api, name: str):
    campaign = campaign_services.campaign_create(
        name=name,
        ruleset="fad",
        options={"campaign_structure": "random", "campaign_battles_planned": 3},
        seed=SEED,
        actor=umpire,
    )
    return campaign, _load_forces(api, campaign)


def _play_random_campaign(umpire, api, name: str) -> list[tuple]:
    """Three battles generated by the server in a row; what each came to."""
    campaign, forces = _random_campaign(umpire, api, name)
    fought = []
    for number in (1, 2, 3):
        response = api.post(
            generate_url(campaign), body(forces, name=f"Battle {number}", day=number)
        )
        assert response.status_code == 202, response.json()
        job = api.get(response.headers["Location"]).json()
        assert job["status"] == "succeeded", job
        generated = job["events"][1]["payload"]
        assert generated["battle_number"] == number
        assert generated["battles_planned"] == 3
        assert all(d["source"] == "server" for d in generated["dice"])
        battle_id = generated["battle_id"]
        if number == 1:
            # The next battle comes up only when this one is over, and none is planned by hand.
            refused(
                api, campaign, "post", generate_url(campaign), body(forces), 409,
                "campaign.battle_not_over",
            )  # fmt: skip
            plan = {
                "name": "By hand",
                "day": 1,
                "sides": [
                    {"side": "Federation", "force_ids": [str(forces["Federation"].id)]},
                    {"side": "Insurgents", "force_ids": [str(forces["Insurgents"].id)]},
                ],
            }
            refused(
                api, campaign, "post", f"/api/v1/campaigns/{campaign.id}/battles/", plan, 409,
                "battle.random_campaign",
            )  # fmt: skip
        lines = [line["summary"] for line in log_lines(api, battle_id)]
        assert lines[1].startswith(f"Battle {number} of 3 generated from the scenario tables")
        fought.append(
            (
                [side["mission"] for side in generated["sides"]],
                generated["edge_chosen_by"],
                [(d["result"], d["purpose"]) for d in generated["dice"]],
            )
        )
        _fight(api, battle_id, forces)
    refused(
        api, campaign, "post", generate_url(campaign), body(forces), 409, "campaign.over"
    )  # fmt: skip
    return fought


def test_a_random_campaign_generates_three_battles_in_a_row_and_the_same_seed_repeats_it_p64(
    umpire, umpire_api
):
    first = _play_random_campaign(umpire, umpire_api, "Valley, first telling")
    again = _play_random_campaign(umpire, umpire_api, "Valley, second telling")
    assert len(first) == 3
    assert first == again
    # Three battles, each with its own dice: the campaign's seeded stream moves on.
    assert len({tuple(dice) for _, _, dice in first}) == 3


def test_a_defensive_stance_loses_dummy_markers_per_platoon_or_per_force_by_the_option_p59_p61(
    umpire_api, campaign, forces
):
    """Two rifle platoons on one side: a Defensive stance loses 2 Dummy markers per platoon by
    default (p.61), 2 in all with option scenario_stance_dummy_markers = per_force (p.59)."""
    second = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/forces/",
        {"roster": (EXAMPLES / PLATOON).read_text(), "source": "second platoon"},
    )
    assert second.status_code == 201, second.json()
    platoons = [str(f.id) for f in Force.objects.filter(campaign_id=campaign.id, side="Federation")]
    assert len(platoons) == 2
    request = body(forces, stance="defensive")
    request["sides"][0]["force_ids"] = platoons
    # Edge: 6 against 1; the Federation's Mission Table all 1s but Hold (6), the Insurgents'
    # all 1s but Sweep (6): no recon units.
    dice = [6, 1, *[1, 1, 6, 1, 1, 1, 1, 1], *[1, 1, 1, 1, 1, 1, 1, 6]]

    def federation_dummies() -> int:
        response = umpire_api.post(generate_url(campaign), {**request, "dice": dice})
        assert response.status_code == 201, response.json()
        generated = list(store.read(campaign.id, types=["battles.FadScenarioGenerated"]))[-1]
        return generated.payload["sides"][0]["dummy_markers"]

    assert federation_dummies() == 5 * 2 - 2 * 2
    changed = umpire_api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": {"scenario_stance_dummy_markers": "per_force"}, "reason": "p.59 reading"},
    )
    assert changed.status_code == 200, changed.json()
    assert federation_dummies() == 5 * 2 - 2


def test_a_squad_ambushed_on_recon_rolls_for_replacements_after_the_battle_p61_p66(
    umpire_api, campaign, forces
):
    """The unit destroyed on recon is lost in this battle, so its first post-battle roll is the
    Infantry Replacements table (p.66: units completely eliminated included)."""
    squad1 = unit(forces["Federation"], "Rifle Squad 1")
    dice = EDGE + FED_MISSIONS + INS_MISSIONS + [1]
    response = umpire_api.post(generate_url(campaign), body(forces, fed_recon=[squad1], dice=dice))
    assert response.status_code == 201, response.json()
    battle_id = response.json()["id"]
    _fight(umpire_api, battle_id, forces)
    prompt = umpire_api.get(f"/api/v1/battles/{battle_id}/after-action/").json()
    first = prompt["dice"][0]
    assert (first["die"], first["for"]) == (6, str(squad1.id))
    assert "replacement" in first["purpose"].lower()


def test_the_same_mission_for_both_is_an_escalating_engagement_and_recon_units_are_safe_p62(
    umpire_api, campaign, forces
):
    squad1 = unit(forces["Federation"], "Rifle Squad 1")
    # Both sides' highest total is Assault (Federation 9, Insurgents 6 against Hold's 1 + 4).
    dice = EDGE + FED_MISSIONS + [6, 1, 1, 1, 1, 1, 1, 1]
    response = umpire_api.post(generate_url(campaign), body(forces, fed_recon=[squad1], dice=dice))
    assert response.status_code == 201, response.json()
    battle = response.json()
    assert battle["scenario"] == "FaD scenario generation (p.59-63): Escalating Engagement"
    for side in battle["sides"]:
        assert side["mission"]["victory_conditions"].startswith(
            "Escalating Engagement (FaD p.62): Eliminate or rout half of the opposing units"
        )
    generated = next(
        e for e in store.read(campaign.id, types=["battles.FadScenarioGenerated"])
    ).payload
    assert generated["escalating_engagement"] is True
    assert [s["deployment_depth"] for s in generated["sides"]] == [18, 18]
    assert generated["sides"][0]["recon"] == []
    assert battle["participants"] == []
    text = "\n".join(line["summary"] for line in log_lines(umpire_api, battle["id"]))
    assert 'an Escalating Engagement (FaD p.62). Both deploy 18" deep; Federation places' in text


def test_a_random_campaign_rolls_one_next_battle_at_a_time(umpire, umpire_api, monkeypatch):
    campaign, forces = _random_campaign(umpire, umpire_api, "Valley, one at a time")
    monkeypatch.setattr(jobs, "dispatch", lambda job_id: None)  # the worker is busy
    response = umpire_api.post(generate_url(campaign), body(forces))
    assert response.status_code == 202, response.json()
    refused(
        umpire_api, campaign, "post", generate_url(campaign), body(forces), 409,
        "campaign.battle_being_generated",
    )  # fmt: skip
    job = jobs.run_job(response.json()["id"])
    assert job is not None
    assert job.status == "succeeded"
