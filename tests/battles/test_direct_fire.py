"""Direct fire by infantry through HTTP with table dice (SG2 P.33-36): the book's examples."""

from __future__ import annotations

import pytest

from battles.models import Participant
from eventlog import store
from rosters.models import Trooper
from tests.battles.conftest import members, squads
from tests.battles.helpers import assert_rebuild_keeps_rows

pytestmark = pytest.mark.django_db


def fire(api, battle, body):
    return api.post(f"/api/v1/battles/{battle['id']}/actions/direct_fire/", body)


def battle_log(api, battle):
    return [
        line["summary"]
        for line in api.get(f"/api/v1/battles/{battle['id']}/log/").json()["results"]
    ]


@pytest.fixture
def squad1(forces):
    return squads(forces["Blue"])[0]  # Recon Squad 1: Regular, range band 8"


@pytest.fixture
def red2(forces):
    return squads(forces["Red"])[1]  # Squad 2: eight men in partial light armour (D6)


def body(squad1, red2, **changes):
    return {
        "unit_id": str(squad1.id),
        "target_id": str(red2.id),
        "men_firing": 5,
        "small_arms_firepower": 2,  # 5 x FP2 = 10: a D10 (P.34)
        "impact_die": 10,  # advanced assault rifles
        **changes,
    }


def test_p35_potential_hits_18_against_a_d8(umpire_api, battle, squad1, red2):
    """P.35: a squad with small arms and a SAW totals 18; the target, over one range band away
    (12" for a Regular's 8" band) in soft cover, rolled a D8: two hits and a possible third,
    which the target avoids only by rolling above 2 on a D8."""
    response = fire(
        umpire_api,
        battle,
        body(
            squad1,
            red2,
            distance=12,
            cover="soft",
            support_weapons=[{"name": "SAW", "firepower_die": 8}],
            # range D8 3; quality D8 6, firepower D10 7, SAW D8 5 = 18; left-over roll D8 2;
            # then per potential hit impact D10 against armour D8 (D6 up one for soft cover).
            dice=[3, 6, 7, 5, 2, 1, 2, 2, 3, 1, 4],
        ),
    )
    assert response.status_code == 201, response.json()
    fired, casualties = response.json()["events"]
    p = fired["payload"]
    assert fired["type"] == "battles.FireResolved"
    assert (p["range_bands"], p["range_die"], p["firer_dice"]) == (2, 8, [8, 10, 8])
    assert (p["effect"], p["total"], p["left_over"], p["left_over_roll"]) == (
        "effective",
        18,
        2,
        2,
    )
    assert p["potential_hits"] == 3
    assert casualties["type"] == "battles.CasualtiesResolved"
    assert casualties["payload"]["potential_hits"] == 3
    assert [h["result"] for h in casualties["payload"]["hits"]] == ["no_effect"] * 3
    assert [d["purpose"] for d in p["dice"]][:5] == [
        "range die",
        "quality die",
        "small-arms firepower die",
        "support weapon 1 die",
        "left-over 2 against a possible extra hit",
    ]
    assert Participant.objects.get(battle_id=battle["id"], unit_id=red2.id).suppression == 1
    log = battle_log(umpire_api, battle)
    assert log[-2] == (
        "Recon Squad 1 fired on Squad 2 (2 range bands, soft cover): range d8 rolled 3 against "
        "d8 6 + d10 7 + d8 5: fully effective, total 18 for 3 potential hits (left-over 2: the "
        "target rolled 2, extra hit scored); Squad 2 now has 1 suppression marker. Squad 2 must "
        "take a confidence test (first suppressed by fire, P.20). "
        "[d8 3, d8 6, d10 7, d8 5, d8 2; table]"
    )


def test_p35_the_third_hit_is_avoided_above_2(umpire_api, battle, squad1, red2):
    response = fire(
        umpire_api,
        battle,
        body(
            squad1,
            red2,
            range_bands=2,
            cover="soft",
            support_weapons=[{"firepower_die": 8}],
            dice=[3, 6, 7, 5, 3, 1, 2, 2, 3],
        ),
    )
    assert response.status_code == 201, response.json()
    assert response.json()["events"][0]["payload"]["potential_hits"] == 2


def test_p36_impact_example_and_allocation(umpire_api, battle, squad1, red2):
    """P.36: three potential hits, impact D10 against partial light armour D6: 3 v 5 no effect,
    6 v 5 a WOUND, 9 v 4 a KILL; then the D8 for an eight-man squad picks who (P.36: a 5 is the
    fifth man along)."""
    men = members(red2)
    response = fire(
        umpire_api,
        battle,
        body(
            squad1,
            red2,
            range_bands=1,
            # range D4 2; quality D8 8, firepower D10 4: 12 / 4 = 3 potential hits exactly;
            # impact/armour 3 v 5, 6 v 5, 9 v 4; allocation D8 5 (the wound), 7 (the kill).
            dice=[2, 8, 4, 3, 5, 6, 5, 9, 4, 5, 7],
        ),
    )
    assert response.status_code == 201, response.json()
    fired, casualties = response.json()["events"]
    assert fired["payload"]["potential_hits"] == 3
    assert fired["payload"]["left_over_roll"] is None
    assert fired["payload"]["confidence_test_for"] == ["casualties_from_fire"]
    hits = casualties["payload"]["hits"]
    assert [(h["impact_roll"], h["armour_roll"], h["result"]) for h in hits] == [
        (3, 5, "no_effect"),
        (6, 5, "wound"),
        (9, 4, "kill"),
    ]
    assert [h["trooper_id"] for h in hits] == [None, str(men[4].id), str(men[6].id)]
    statuses = {t.name: t.status for t in members(red2)}
    assert statuses[men[4].name] == "wounded"
    assert statuses[men[6].name] == "dead"
    log = battle_log(umpire_api, battle)
    assert log[-4].endswith(
        "Squad 2 must take a confidence test (casualties from fire, P.20). "
        "[d4 2, d8 8, d10 4; table]"
    )
    assert log[-3].startswith("Squad 2 took 3 potential hits (impact d10, open cover")
    assert_rebuild_keeps_rows()


def test_suppression_only_records_no_casualties(umpire_api, battle, squad1, red2):
    response = fire(umpire_api, battle, body(squad1, red2, range_bands=1, dice=[3, 4, 2]))
    assert response.status_code == 201, response.json()
    (fired,) = response.json()["events"]
    assert (fired["payload"]["effect"], fired["payload"]["potential_hits"]) == ("suppression", 0)


def test_fire_out_of_range_is_refused_before_any_die(umpire_api, battle, campaign, squad1, red2):
    before = store.last_sequence(campaign.id)
    response = fire(umpire_api, battle, body(squad1, red2, distance=40, cover="hard", dice=[1]))
    assert response.status_code == 422, response.json()
    assert response.json()["code"] == "fire.out_of_range"
    response = fire(umpire_api, battle, body(squad1, squad1, range_bands=1, dice=[1]))
    assert response.status_code == 400, response.json()
    assert response.json()["field"] == "target_id"
    response = fire(umpire_api, battle, body(squad1, red2, dice=[1]))
    assert response.status_code == 400, response.json()
    assert store.last_sequence(campaign.id) == before


def test_full_fire_needs_the_impact_die(umpire_api, battle, squad1, red2):
    payload = body(squad1, red2, range_bands=1, dice=[1])
    del payload["impact_die"]
    response = fire(umpire_api, battle, payload)
    assert response.status_code == 400, response.json()
    assert response.json()["field"] == "impact_die"


def set_quick_and_dirty(api, campaign):
    response = api.patch(
        f"/api/v1/campaigns/{campaign.id}/options/",
        {"changes": {"fire_method": "quick_and_dirty"}, "reason": "a big battle tonight"},
    )
    assert response.status_code == 200, response.json()


def test_quick_and_dirty_divides_by_armour_and_wounds_each_figure_hit(
    umpire_api, battle, campaign, squad1, red2
):
    """P.36: the total over the armour die (D6 partial light armour, up one in soft cover: D8),
    the left-over roll still made; each figure hit is wounded, however many hits he took."""
    set_quick_and_dirty(umpire_api, campaign)
    men = members(red2)
    payload = body(squad1, red2, range_bands=1, cover="soft")
    del payload["impact_die"]
    # range D6 2; quality D8 8, firepower D10 10 = 18 over D8: 2 hits, left-over 2, rolled 1:
    # a third; allocation D8 5, 5, 2.
    response = fire(umpire_api, battle, payload | {"dice": [2, 8, 10, 1, 5, 5, 2]})
    assert response.status_code == 201, response.json()
    fired, casualties = response.json()["events"]
    assert (fired["payload"]["method"], fired["payload"]["hits_divisor_die"]) == (
        "quick_and_dirty",
        8,
    )
    assert fired["payload"]["potential_hits"] == 3
    c = casualties["payload"]
    assert c["mode"] == "quick_and_dirty"
    assert [(x["trooper_id"], x["status_after"], x["wounds"]) for x in c["casualties"]] == [
        (str(men[1].id), "wounded", 1),
        (str(men[4].id), "wounded", 1),
    ]
    assert [d["result"] for d in c["casualties"][1]["dice"]] == [5, 5]
    log = battle_log(umpire_api, battle)
    assert "total 18 for 3 hits against armour d8 (left-over 2: the target rolled 1" in log[-4]
    assert log[-3].startswith(
        "Squad 2 took 3 hits of quick-and-dirty fire, each figure hit wounded until a medic "
        "checks him (P.36): "
    )
    assert_rebuild_keeps_rows()
    refused = fire(umpire_api, battle, body(squad1, red2, range_bands=1, dice=[1]))
    assert refused.status_code == 400, refused.json()
    assert refused.json()["field"] == "impact_die"


def test_quick_and_dirty_refuses_a_target_in_mixed_armour(
    umpire_api, battle, campaign, squad1, red2
):
    """P.36 divides by the target's one armour die: a squad in mixed armour has none."""
    set_quick_and_dirty(umpire_api, campaign)
    Trooper.objects.filter(pk=members(red2)[0].id).update(armour_die=8)
    before = store.last_sequence(campaign.id)
    payload = body(squad1, red2, range_bands=1, dice=[1, 8, 10])
    del payload["impact_die"]
    response = fire(umpire_api, battle, payload)
    assert response.status_code == 409, response.json()
    assert (response.json()["code"], response.json()["field"]) == ("fire.mixed_armour", "target_id")
    assert store.last_sequence(campaign.id) == before


def test_server_dice_resolve_the_fire_in_a_job(umpire_api, battle, squad1, red2):
    response = fire(umpire_api, battle, body(squad1, red2, range_bands=3, cover="soft"))
    assert response.status_code == 202, response.json()
    job = umpire_api.get(response.headers["Location"]).json()
    assert job["status"] == "succeeded", job
    fired = job["events"][0]
    assert fired["type"] == "battles.FireResolved"
    assert fired["payload"]["range_die"] == 10
    assert all(d["source"] == "server" for d in fired["payload"]["dice"])
