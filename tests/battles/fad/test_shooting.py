"""Fast and Dirty shooting through HTTP with table dice (FaD p.17-21, p.24, p.35).

The rifle platoon of ``examples/fad-rifle-platoon.yaml`` against a militia squad (Conscript,
no armour) with a technical and a sniper. Every expected number is worked out by hand from the
book's tables: the Fire Effect (2d6 keep the highest plus the p.18 modifiers), hits per 3 points
(p.18), damage d6 + Damage against d6 + armour (p.19, p.35), the marker (p.24), penetration and
the Vehicle Damage table (p.20), blast weapons (p.21).
"""

from __future__ import annotations

import pytest

from battles.models import Participant
from eventlog import store
from rosters.models import Force, Trooper, Unit, Vehicle
from tests.battles.conftest import EXAMPLES
from tests.battles.fad.table import MILITIA_SQUAD, insurgents
from tests.battles.helpers import assert_rebuild_keeps_rows
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

PLATOON = "fad-rifle-platoon.yaml"

MILITIA = insurgents(
    MILITIA_SQUAD,
    """\
  - name: Technical Crew
    kind: vehicle_crew
    quality: conscript
    resolve: uncertain
    troopers:
      - {name: Driver Nash, role: leader, weapon: low-tech rifle, armour: none}
    vehicles:
      - {name: Technical, class: light transport, size: 2, capacity: 4, armour: 0}
""",
)


def make_campaign(umpire, umpire_api, options=None):
    campaign = campaign_for(umpire, name="Kessler valley", ruleset="fad", options=options)
    for source, text in ((PLATOON, (EXAMPLES / PLATOON).read_text()), ("militia", MILITIA)):
        response = umpire_api.post(
            f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text, "source": source}
        )
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Valley road",
            "day": 2,
            "attacker": "Federation",
            "sides": [
                {"side": "Federation", "force_ids": [str(forces["Federation"].id)]},
                {"side": "Insurgents", "force_ids": [str(forces["Insurgents"].id)]},
            ],
        },
    )
    assert response.status_code == 201, response.json()
    battle = response.json()
    fighting = [
        str(u.id)
        for side in ("Federation", "Insurgents")
        for u in Unit.objects.filter(force_id=forces[side].id).exclude(kind="platoon")
    ]
    url = f"/api/v1/battles/{battle['id']}/"
    assert umpire_api.post(f"{url}commit/", {"unit_ids": fighting}).status_code == 200
    assert umpire_api.post(f"{url}start/").status_code == 200
    return campaign, forces, url


@pytest.fixture
def setup(umpire, umpire_api):
    return make_campaign(umpire, umpire_api)


def unit(force, name: str) -> Unit:
    return Unit.objects.get(force_id=force.id, name=name)


def members(unit_row: Unit) -> dict[str, Trooper]:
    return {t.name: t for t in Trooper.objects.filter(unit_id=unit_row.id).order_by("order")}


# Distance order of the militia from the firers, as the table measured it.
ORDER = ("Rifle Pike", "Rifle Voss", "Gun Odell", "Rifle Ward", "Boss Hale")


def squad1_shoots_militia(forces, **extra):
    """Rifle Squad 1 (Regular: leader and six assault rifles, one SAW) at the militia, 10" away:
    Regular base range 4", assault rifles x5, so close range (no modifier, p.17-18)."""
    militia = unit(forces["Insurgents"], "Militia Squad")
    figures = members(militia)
    body = {
        "unit_id": str(unit(forces["Federation"], "Rifle Squad 1").id),
        "target_id": str(militia.id),
        "distance": 10,
        "basic_weapon": "assault_rifles",
        "riflemen": 7,
        "support_weapons": ["squad_automatic_weapon"],
        "target_order": [str(figures[name].id) for name in ORDER],
    }
    return body | extra


def post(api, url, action, body, dice):
    return api.post(f"{url}actions/{action}/", body | {"dice": dice})


def marker(url, api, unit_row: Unit) -> str:
    battle = api.get(url).json()
    (found,) = [p for p in battle["participants"] if p["unit_id"] == str(unit_row.id)]
    return found["marker"]


def battle_log(api, url) -> list[str]:
    return [line["summary"] for line in api.get(f"{url}log/").json()["results"]]


# Fire Effect: best of 2d6 (5, 3) = 5, Regular +1, 7 riflemen +2, one SAW +2 = 10: 3 hits on
# the three closest figures (p.18). Damage: assault rifles +2 against no armour -2 (p.19):
#   Pike   1+2 = 3 against 6-2 = 4: no effect;
#   Voss   2+2 = 4 against 4-2 = 2: ahead by 2;
#   Odell  5+2 = 7 against 2-2 = 0: ahead by 7.
SHOT_DICE = [5, 3, 1, 6, 2, 4, 5, 2]


def test_fire_effect_hits_the_closest_figures_and_wounds_with_recover_wounded_p18_p35(
    umpire_api, setup
):
    """FaD p.18-19 and p.35 (Recover Wounded, on by default): ahead by 0-2 wounds, by 3 or more
    kills; a Fire Effect of 10 does not exceed a Conscript's 12: Under Fire (p.24)."""
    _campaign, forces, url = setup
    militia = unit(forces["Insurgents"], "Militia Squad")
    response = post(umpire_api, url, "fad_shoot", squad1_shoots_militia(forces), SHOT_DICE)
    assert response.status_code == 201, response.json()
    events = response.json()["events"]
    assert [e["type"] for e in events] == ["battles.FadShotResolved", "battles.FadLossesRecorded"]
    shot = events[0]["payload"]
    assert shot["range_band"] == "close"
    assert shot["shooter_dice"] == [5, 3]
    assert shot["fire_effect"] == 10
    assert shot["hits"] == 3
    assert [m["value"] for m in shot["modifiers"]] == [1, 2, 2]
    figures = members(militia)
    assert [h["trooper_id"] for h in shot["figures_hit"]] == [
        str(figures[name].id) for name in ORDER[:3]
    ]
    assert [h["effect"] for h in shot["figures_hit"]] == ["no_effect", "wounded", "killed"]
    assert [d["result"] for d in shot["dice"]] == SHOT_DICE
    losses = events[1]["payload"]["troopers"]
    assert [(x["trooper_id"], x["result"]) for x in losses] == [
        (str(figures["Rifle Voss"].id), "wounded"),
        (str(figures["Gun Odell"].id), "killed"),
    ]
    figures = members(militia)
    assert [figures[name].status for name in ORDER] == ["fit", "wounded", "dead", "fit", "fit"]
    assert marker(url, umpire_api, militia) == "under_fire"
    assert [d["purpose"] for d in shot["dice"][2:4]] == [
        "damage roll for the hit on Rifle Pike",
        "armour roll for Rifle Pike",
    ]
    line = battle_log(umpire_api, url)
    assert any(
        "Rifle Squad 1 shot at Militia Squad" in text
        and "Fire Effect 10, 3 hits" in text
        and "Rifle Voss 4 against 2: wounded" in text
        and "Militia Squad is Under Fire" in text
        for text in line
    ), line


def test_basic_game_removes_every_figure_the_damage_roll_reaches_p19(umpire, umpire_api):
    """FaD p.19 (basic game): equal or better removes the figure; the same dice that wound Voss
    with Recover Wounded kill him without it."""
    _campaign, forces, url = make_campaign(umpire, umpire_api, {"adv_recover_wounded": False})
    militia = unit(forces["Insurgents"], "Militia Squad")
    response = post(umpire_api, url, "fad_shoot", squad1_shoots_militia(forces), SHOT_DICE)
    assert response.status_code == 201, response.json()
    shot = response.json()["events"][0]["payload"]
    assert [h["effect"] for h in shot["figures_hit"]] == ["no_effect", "killed", "killed"]
    figures = members(militia)
    assert [figures[name].status for name in ORDER] == ["fit", "dead", "dead", "fit", "fit"]


@pytest.mark.parametrize(("best", "expected"), [(5, "under_fire"), (6, "pinned")])
def test_pinned_only_when_the_fire_effect_exceeds_the_pin_value_p24(
    umpire_api, setup, best, expected
):
    """FaD p.24: Pinned when the Fire Effect *exceeds* the Conscript's 12. Bunched Up +2 (p.18):
    best 5 gives 12 (equal: Under Fire), best 6 gives 13 (Pinned). Behind hard cover, 5 points a
    hit: 2 hits either way, both saved (1+2 against 6-2)."""
    _campaign, forces, url = setup
    militia = unit(forces["Insurgents"], "Militia Squad")
    body = squad1_shoots_militia(forces, bunched_up=True, concealment="hard_cover")
    response = post(umpire_api, url, "fad_shoot", body, [best, 1, 1, 6, 1, 6])
    assert response.status_code == 201, response.json()
    shot = response.json()["events"][0]["payload"]
    assert (shot["fire_effect"], shot["hits"], shot["pinning_level"]) == (best + 7, 2, 12)
    assert marker(url, umpire_api, militia) == expected


def test_a_pinned_unit_cannot_shoot_and_a_marked_target_is_harder_to_hit_p24(umpire_api, setup):
    """FaD p.24: a Pinned squad cannot Shoot (refused, nothing recorded); fire at a unit already
    marked takes -1, and a Pinned marker is not replaced by Under Fire."""
    campaign, forces, url = setup
    militia = unit(forces["Insurgents"], "Militia Squad")
    body = squad1_shoots_militia(forces, bunched_up=True, concealment="hard_cover")
    assert post(umpire_api, url, "fad_shoot", body, [6, 1, 1, 6, 1, 6]).status_code == 201
    assert marker(url, umpire_api, militia) == "pinned"

    squad1 = unit(forces["Federation"], "Rifle Squad 1")
    back = {
        "unit_id": str(militia.id),
        "target_id": str(squad1.id),
        "distance": 10,
        "basic_weapon": "low_tech_rifles",
        "riflemen": 5,
        "target_order": [str(t.id) for t in members(squad1).values()],
    }
    before = store.last_sequence(campaign.id)
    refused = post(umpire_api, url, "fad_shoot", back, [6, 6])
    assert refused.status_code == 422, refused.json()
    assert refused.json()["code"] == "fire.pinned"
    assert store.last_sequence(campaign.id) == before

    # Squad 1 again: best 6, Regular +1, riflemen +2, SAW +2, target marked -1 = 10 (not above
    # 12), 3 hits not concealed; the unit stays Pinned.
    again = squad1_shoots_militia(forces)
    response = post(umpire_api, url, "fad_shoot", again, [6, 1, 1, 6, 1, 6, 1, 6])
    assert response.status_code == 201, response.json()
    shot = response.json()["events"][0]["payload"]
    assert ("target Under Fire or Pinned", -1) in [
        (m["name"], m["value"]) for m in shot["modifiers"]
    ]
    assert (shot["fire_effect"], shot["hits"]) == (10, 3)
    assert shot["marker_after"] == "pinned"
    assert marker(url, umpire_api, militia) == "pinned"


def test_squad_based_damage_book_example_p19(umpire, umpire_api):
    """FaD p.19 Optional - Squad-Based Damage, the book's example: four hits, 5 against 6: one
    saved, three unsaved; with Recover Wounded two wounded and one killed. Fire Effect: best 5,
    +1 +2 +2, Bunched Up +2 = 12: four hits. Attacker 3+2 = 5; defender in heavy armour 4+2 = 6."""
    _campaign, forces, url = make_campaign(umpire, umpire_api, {"fire_squad_based_damage": True})
    militia = unit(forces["Insurgents"], "Militia Squad")
    body = squad1_shoots_militia(forces, bunched_up=True, target_armour="heavy")
    response = post(umpire_api, url, "fad_shoot", body, [5, 1, 3, 4])
    assert response.status_code == 201, response.json()
    shot = response.json()["events"][0]["payload"]
    assert shot["squad_damage"]["saved"] == 1
    assert [h["effect"] for h in shot["figures_hit"]] == [
        "wounded",
        "wounded",
        "killed",
        "no_effect",
    ]
    figures = members(militia)
    assert [figures[name].status for name in ORDER] == [
        "wounded",
        "wounded",
        "dead",
        "fit",
        "fit",
    ]


def test_shooting_a_vehicle_penetrates_and_destroys_it_p19_p21(umpire_api, setup):
    """FaD p.19-21. Rifle Squad 2 (Conscript) with its grenade launcher (+1d6 Fire Effect, AT +2)
    at the technical (armour 0), 10": assault rifles x5 from base 3", close range. Fire Effect:
    best of 4, 2 = 4, grenade launcher 5: 9, three hits.
      hit 1: 1+2 = 3 against 5: no effect;
      hit 2: 4+2 = 6 against 3: three ahead, two damage rolls 3 and 5 (immobilised, weapon
             inoperable): the attacker keeps immobilised;
      hit 3: 6+2 = 8 against 1: two rolls 6 and 1: destroyed."""
    _campaign, forces, url = setup
    crew = unit(forces["Insurgents"], "Technical Crew")
    technical = Vehicle.objects.get(unit_id=crew.id)
    body = {
        "unit_id": str(unit(forces["Federation"], "Rifle Squad 2").id),
        "target_id": str(crew.id),
        "vehicle_id": str(technical.id),
        "distance": 10,
        "basic_weapon": "assault_rifles",
        "riflemen": 7,
        "support_weapons": ["grenade_launcher"],
    }
    dice = [4, 2, 5, 1, 5, 4, 3, 3, 5, 6, 1, 6, 1]
    response = post(umpire_api, url, "fad_shoot_vehicle", body, dice)
    assert response.status_code == 201, response.json()
    events = response.json()["events"]
    shot = events[0]["payload"]
    assert (shot["fire_effect"], shot["hits"], shot["anti_tank"]) == (9, 3, 2)
    assert [h["penetration"] for h in shot["hits_on_vehicle"]] == [
        "no_effect",
        "penetrated_twice",
        "penetrated_twice",
    ]
    assert [h["effect"] for h in shot["hits_on_vehicle"]] == ["none", "immobilised", "destroyed"]
    assert shot["penetrating_hits"] == 2
    assert shot["destroyed"] is True
    assert events[1]["type"] == "battles.FadLossesRecorded"
    assert events[1]["payload"]["vehicles"][0]["condition"] == "destroyed"
    technical.refresh_from_db()
    assert technical.state == "destroyed"
    # Vehicles are never pinned, only Under Fire (p.24).
    assert marker(url, umpire_api, crew) == "under_fire"


@pytest.mark.parametrize(("option", "expected"), [(None, "under_fire"), ("never", "")])
def test_a_blast_round_that_misses_its_mark_p21(umpire, umpire_api, option, expected):
    """FaD p.21 Ranging In: 1d6 under 5 and the shells miss. The target was still shot at
    (p.24): Under Fire, unless option fire_under_fire_on_miss is ``never``."""
    options = {"fire_under_fire_on_miss": option} if option else None
    _campaign, forces, url = make_campaign(umpire, umpire_api, options)
    militia = unit(forces["Insurgents"], "Militia Squad")
    body = {
        "unit_id": str(unit(forces["Federation"], "Platoon Command Squad").id),
        "target_id": str(militia.id),
        "weapon": "mortar_light",
        "distance": 30,
        "target_order": [str(t.id) for t in members(militia).values()],
    }
    response = post(umpire_api, url, "fad_blast", body, [4])
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    assert event["payload"]["on_target"] is False
    assert marker(url, umpire_api, militia) == expected


def test_a_blast_on_target_rolls_the_strike_effect_p21(umpire_api, setup):
    """FaD p.21: Ranging In 5 lands on target; Strike Effect 2d6 added, 4 + 5 = 9: three hits.
    Light mortar Damage +2 (p.69, by default for a weapon not on a vehicle) against no armour:
    2+2 = 4 against 6-2 = 4 wounds; 1+2 against 6-2 nothing; 6+2 = 8 against 1-2 kills."""
    _campaign, forces, url = setup
    militia = unit(forces["Insurgents"], "Militia Squad")
    figures = members(militia)
    body = {
        "unit_id": str(unit(forces["Federation"], "Platoon Command Squad").id),
        "target_id": str(militia.id),
        "weapon": "mortar_light",
        "distance": 30,
        "target_order": [str(figures[name].id) for name in ORDER],
    }
    response = post(umpire_api, url, "fad_blast", body, [5, 4, 5, 2, 6, 1, 6, 6, 1])
    assert response.status_code == 201, response.json()
    blast = response.json()["events"][0]["payload"]
    assert (blast["strike_effect"], blast["hits"], blast["damage_rating"]) == (9, 3, 2)
    assert [h["effect"] for h in blast["figures_hit"]] == ["wounded", "no_effect", "killed"]
    assert marker(url, umpire_api, militia) == "under_fire"


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"distance": 61}, "fire.out_of_range"),
        ({"riflemen": 9}, "fire.not_enough_figures"),
        ({"basic_weapon": "grenade_launcher"}, "fire.wrong_weapon_class"),
        ({"crossfire": True}, "fire.crossfire_off"),
    ],
)
def test_refused_shots_record_nothing(umpire_api, setup, change, code):
    """Long range is triple close range: 60" for Regulars with assault rifles (p.17); Squad 1 has
    eight figures; a support weapon is not a basic weapon (p.69); Crossfire is optional (p.24)."""
    campaign, forces, url = setup
    before = store.last_sequence(campaign.id)
    response = post(umpire_api, url, "fad_shoot", squad1_shoots_militia(forces, **change), [6, 6])
    assert response.status_code in (400, 409, 422), response.json()
    assert response.json()["code"] == code
    assert store.last_sequence(campaign.id) == before
    assert Participant.objects.filter(marker="").count() == Participant.objects.count()


@pytest.mark.parametrize(
    ("includes_wounded", "hits"),
    [
        (True, ["Rifle Pike", "Rifle Voss", "Rifle Ward"]),
        (False, ["Rifle Pike", "Rifle Ward", "Boss Hale"]),
    ],
)
def test_a_wounded_figure_takes_hits_only_with_the_option_p18_p35(
    umpire, umpire_api, includes_wounded, hits
):
    """FaD p.35: a wounded figure stays on the table and dies if wounded again; option
    fire_allocation_includes_wounded (default true) lets hits reach him. After the first shot
    (Voss wounded, Odell killed) the order is Pike, Voss, Ward, Hale; the second shot (best 5,
    +5, target Under Fire -1 = 9: three hits, all saved) reaches Voss, or passes him by for
    Hale."""
    _campaign, forces, url = make_campaign(
        umpire, umpire_api, {"fire_allocation_includes_wounded": includes_wounded}
    )
    militia = unit(forces["Insurgents"], "Militia Squad")
    first = post(umpire_api, url, "fad_shoot", squad1_shoots_militia(forces), SHOT_DICE)
    assert first.status_code == 201, first.json()
    figures = members(militia)
    order = ["Rifle Pike", "Rifle Voss", "Rifle Ward", "Boss Hale"]
    body = squad1_shoots_militia(forces, target_order=[str(figures[n].id) for n in order])
    response = post(umpire_api, url, "fad_shoot", body, [5, 3, 1, 6, 1, 6, 1, 6])
    assert response.status_code == 201, response.json()
    shot = response.json()["events"][0]["payload"]
    names = {str(t.id): name for name, t in figures.items()}
    assert shot["fire_effect"] == 9
    assert [names[h["trooper_id"]] for h in shot["figures_hit"]] == hits


@pytest.mark.parametrize(("die", "expected"), [(3, "pinned"), (4, "under_fire")])
def test_crossfire_pinning_test_with_the_option_p24(umpire, umpire_api, die, expected):
    """FaD p.24 Optional - Crossfire: after the shot (Fire Effect 10, Under Fire) the Conscript
    militia rolls d6 against its Quality Level 4+: 3 is Pinned, 4 stays Under Fire."""
    _campaign, forces, url = make_campaign(umpire, umpire_api, {"fire_crossfire": True})
    militia = unit(forces["Insurgents"], "Militia Squad")
    body = squad1_shoots_militia(forces, crossfire=True)
    response = post(umpire_api, url, "fad_shoot", body, [*SHOT_DICE, die])
    assert response.status_code == 201, response.json()
    shot = response.json()["events"][0]["payload"]
    assert shot["crossfire_die"] == die
    assert shot["dice"][-1]["purpose"] == "Crossfire Pinning Test"
    assert marker(url, umpire_api, militia) == expected
    assert any("crossfire Pinning Test" in line for line in battle_log(umpire_api, url))


def test_the_server_rolls_a_shot_in_a_job_and_the_rows_rebuild(umpire_api, setup):
    """Without table dice the server rolls: the Fire Effect's two dice, then two a hit (p.18-19);
    the figures it reports are the target's, and the read models fold again to the same rows."""
    _campaign, forces, url = setup
    militia = unit(forces["Insurgents"], "Militia Squad")
    response = umpire_api.post(f"{url}actions/fad_shoot/", squad1_shoots_militia(forces))
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    shot = job["events"][0]["payload"]
    assert {d["source"] for d in shot["dice"]} == {"server"}
    assert len(shot["dice"]) == 2 + 2 * shot["hits"]
    assert shot["fire_effect"] == max(d["result"] for d in shot["dice"][:2]) + 5
    down = {h["trooper_id"] for h in shot["figures_hit"] if h["effect"] != "no_effect"}
    assert {str(t.id) for t in members(militia).values() if t.status != "fit"} == down
    assert_rebuild_keeps_rows()


@pytest.mark.parametrize(("disruption", "expected"), [(True, "pinned"), (False, "under_fire")])
def test_a_squad_that_loses_its_leader_is_pinned_by_command_disruption_p25(
    umpire, umpire_api, disruption, expected
):
    """FaD p.25 Command Disruption (advanced, option adv_command_disruption, on by default): the
    squad whose leader is lost is Pinned instead of Under Fire, though the Fire Effect (10) does
    not exceed its 12. Boss Hale nearest: 5+2 against 2-2 kills him; the two others are saved."""
    _campaign, forces, url = make_campaign(
        umpire, umpire_api, {"adv_command_disruption": disruption}
    )
    militia = unit(forces["Insurgents"], "Militia Squad")
    figures = members(militia)
    order = ["Boss Hale", "Rifle Pike", "Rifle Voss", "Gun Odell", "Rifle Ward"]
    body = squad1_shoots_militia(forces, target_order=[str(figures[n].id) for n in order])
    response = post(umpire_api, url, "fad_shoot", body, [5, 3, 5, 2, 1, 6, 1, 6])
    assert response.status_code == 201, response.json()
    shot = response.json()["events"][0]["payload"]
    assert (shot["fire_effect"], shot["leader_lost"]) == (10, True)
    assert marker(url, umpire_api, militia) == expected


def test_broken_infantry_shoots_at_minus_three_and_a_broken_vehicle_not_at_all_p13(
    umpire_api, setup
):
    """FaD p.13: a broken infantry unit that shoots suffers -3 (p.18 'Shooter Under Fire or
    Broken'): best 5 +1 +2 +2 -3 = 7, two hits, both saved. A broken vehicle crew falls back at
    Standard speed and may not Shoot (refused, nothing recorded). The broken flags are set as the
    morale actions leave them."""
    campaign, forces, url = setup
    squad1 = unit(forces["Federation"], "Rifle Squad 1")
    crew = unit(forces["Insurgents"], "Technical Crew")
    Participant.objects.filter(unit_id__in=[squad1.id, crew.id]).update(broken=True)
    dice = [5, 3, 1, 6, 1, 6]
    response = post(umpire_api, url, "fad_shoot", squad1_shoots_militia(forces), dice)
    assert response.status_code == 201, response.json()
    shot = response.json()["events"][0]["payload"]
    modifiers = [(m["name"], m["value"]) for m in shot["modifiers"]]
    assert ("shooter Under Fire or Broken", -3) in modifiers
    assert (shot["fire_effect"], shot["hits"]) == (7, 2)

    body = {
        "unit_id": str(crew.id),
        "target_id": str(squad1.id),
        "distance": 10,
        "heavy_weapon": "general_purpose_mg",
        "target_order": [str(t.id) for t in members(squad1).values()],
    }
    before = store.last_sequence(campaign.id)
    refused = post(umpire_api, url, "fad_shoot", body, [6])
    assert refused.status_code == 422, refused.json()
    assert refused.json()["code"] == "fire.broken_vehicle"
    assert store.last_sequence(campaign.id) == before


def test_a_figure_wounded_then_killed_is_one_loss_after_the_battle_p35_p66(umpire_api, setup):
    """FaD p.35: a wounded figure hit again dies. The first shot wounds Voss and kills Odell; the
    second (Voss nearest: 6+2 against 1-2) kills Voss. After the battle the militia has lost two
    figures, not three (p.66 INFANTRY REPLACEMENTS: d6 1, none replaced; RESOLVE LOSS d6 3, no
    change)."""
    _campaign, forces, url = setup
    militia = unit(forces["Insurgents"], "Militia Squad")
    first = post(umpire_api, url, "fad_shoot", squad1_shoots_militia(forces), SHOT_DICE)
    assert first.status_code == 201, first.json()
    figures = members(militia)
    order = ["Rifle Voss", "Rifle Pike", "Rifle Ward", "Boss Hale"]
    body = squad1_shoots_militia(forces, target_order=[str(figures[n].id) for n in order])
    second = post(umpire_api, url, "fad_shoot", body, [5, 3, 6, 1, 1, 6, 1, 6])
    assert second.status_code == 201, second.json()
    (lost,) = second.json()["events"][1]["payload"]["troopers"]
    assert (lost["result"], lost["status_before"]) == ("killed", "wounded")
    assert members(militia)["Rifle Voss"].status == "dead"

    assert umpire_api.post(f"{url}end/", {"winner": "Federation"}).status_code == 200
    response = umpire_api.post(f"{url}after-action/", {"dice": [1, 3]})
    assert response.status_code == 201, response.json()
    (replaced,) = [
        e["payload"]
        for e in response.json()["events"]
        if e["type"] == "battles.FadInfantryReplacementsRolled"
        and e["payload"]["unit_id"] == str(militia.id)
    ]
    assert replaced["losses"] == 2
    assert sorted(x["trooper_id"] for x in replaced["lost"]) == sorted(
        str(figures[n].id) for n in ("Rifle Voss", "Gun Odell")
    )
    assert replaced["strength_before"] == 5
