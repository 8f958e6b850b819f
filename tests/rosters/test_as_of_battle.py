"""The roster "before" and "after" a battle, on a campaign whose linked battles are all planned
up front (SG2 P.60: a campaign is a chain of battles, each unit carrying its losses and its
state from one battle into the next).

"Before battle N" is the roster just before battle N began (its ``battles.BattleStarted``), so
battle 1's losses show before battle 2 however early battle 2 was planned; "after battle N" is
the roster after the battle's last event (its end and after-action). A battle not yet begun has
no "before" or "after": 409 ``battle.not_started``.
"""

from __future__ import annotations

import pytest

from eventlog import store
from rosters.models import Force, Trooper, Unit
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

BLUE = """\
name: Blue patrol
side: Blue
units:
  - name: Alpha Squad
    kind: squad
    quality: regular
    leadership: 2
    fatigue: fresh
    toe_strength: 4
    troopers:
      - {name: Sgt Able, role: leader, armour_die: 4}
      - {name: Pte Baker, armour_die: 4}
      - {name: Pte Charlie, armour_die: 4}
      - {name: Pte Dog, armour_die: 4}
"""

RED = """\
name: Red militia
side: Red
units:
  - name: Red Squad
    kind: squad
    quality: green
    leadership: 3
    troopers:
      - {name: Boss Red, role: leader, armour_die: 4}
      - {name: Gun Red, armour_die: 4}
      - {name: Loader Red, armour_die: 4}
"""


@pytest.fixture
def linked(umpire, umpire_api):
    """Three battles in a line, all planned before the first is fought (as the demo does)."""
    campaign = campaign_for(umpire, name="Long night")
    for text in (BLUE, RED):
        response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    following = None
    battles: list[str] = []
    for name, day in (("Breakthrough", 8), ("Hold the ford", 4), ("Recon in force", 1)):
        body = {
            "name": name,
            "day": day,
            "attacker": "Blue",
            "sides": [
                {"side": side, "force_ids": [str(forces[side].id)]} for side in ("Blue", "Red")
            ],
        }
        if following is not None:
            body |= {"next_on_attacker_win": following, "next_on_defender_win": following}
        planned = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/battles/", body)
        assert planned.status_code == 201, planned.json()
        following = planned.json()["id"]
        battles.insert(0, following)
    units = list(Unit.objects.filter(campaign_id=campaign.id, kind="squad"))
    troopers = {t.name: t for t in Trooper.objects.filter(campaign_id=campaign.id)}
    return campaign, forces, units, troopers, battles


def _fight(api, battle_id, units) -> str:
    url = f"/api/v1/battles/{battle_id}/"
    committed = api.post(f"{url}commit/", {"unit_ids": [str(u.id) for u in units]})
    assert committed.status_code == 200, committed.json()
    started = api.post(f"{url}start/")
    assert started.status_code == 200, started.json()
    return url


def _casualties(api, url, result: str, *troopers: Trooper) -> None:
    response = api.post(
        f"{url}actions/casualties/",
        {
            "unit_id": str(troopers[0].unit_id),
            "mode": "named",
            "casualties": [{"trooper_id": str(t.id), "result": result} for t in troopers],
            "dice": [],
        },
    )
    assert response.status_code == 201, response.json()


def _alpha(api, force: Force, battle_id: str, side: str) -> dict:
    response = api.get(f"/api/v1/forces/{force.id}/", {"as_of_battle": battle_id, "side": side})
    assert response.status_code == 200, response.json()
    (alpha,) = [u for u in response.json()["units"] if u["name"] == "Alpha Squad"]
    return alpha


def test_before_battle_2_shows_the_losses_of_battle_1(linked, umpire_api):
    _campaign, forces, units, troopers, (first, second, third) = linked
    url = _fight(umpire_api, first, units)
    _casualties(umpire_api, url, "killed", troopers["Pte Dog"])
    _casualties(umpire_api, url, "wounded", troopers["Pte Charlie"])
    assert umpire_api.post(f"{url}end/", {"winner": "Blue"}).status_code == 200
    # Between the battles the umpire gives Alpha a new sergeant: battle 2 starts with him.
    alpha = next(u for u in units if u.name == "Alpha Squad")
    promoted = umpire_api.post(
        f"/api/v1/units/{alpha.id}/leadership/", {"leadership": 1, "reason": "new sergeant"}
    )
    assert promoted.status_code == 201, promoted.json()
    url = _fight(umpire_api, second, units)
    _casualties(umpire_api, url, "killed", troopers["Sgt Able"])  # battle 2's own loss

    def seen(battle_id: str, side: str) -> tuple[int, int, dict[str, str]]:
        alpha = _alpha(umpire_api, forces["Blue"], battle_id, side)
        status = {t["name"]: t["status"] for t in alpha["troopers"]}
        return alpha["strength"], alpha["leadership"], status

    fit = {"Sgt Able": "fit", "Pte Baker": "fit", "Pte Charlie": "fit", "Pte Dog": "fit"}
    assert seen(first, "before") == (4, 2, fit)
    battle_1 = {**fit, "Pte Charlie": "wounded", "Pte Dog": "dead"}
    assert seen(first, "after") == (3, 2, battle_1)
    # Before battle 2: battle 1's losses and the new sergeant, not battle 2's own loss.
    assert seen(second, "before") == (3, 1, battle_1)
    assert seen(second, "after") == (2, 1, {**battle_1, "Sgt Able": "dead"})

    # Battle 3 is planned but not begun: it has no "before" yet, and says so.
    for side in ("before", "after"):
        response = umpire_api.get(
            f"/api/v1/forces/{forces['Blue'].id}/", {"as_of_battle": third, "side": side}
        )
        assert (response.status_code, response.json()["code"]) == (409, "battle.not_started")
        assert response.json()["field"] == "as_of_battle"


def test_a_voided_start_is_not_the_start(linked, umpire_api):
    """The umpire started battle 1 too early, voided the start, set a unit's leadership and
    started it again: "before" is just before the start that stands."""
    campaign, forces, units, _troopers, (first, _second, _third) = linked
    url = _fight(umpire_api, first, units)
    (started,) = store.read(campaign.id, stream=f"battle:{first}", types=["battles.BattleStarted"])
    voided = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/voids/",
        {"sequence": started.sequence, "reason": "started before the sergeant arrived"},
    )
    assert voided.status_code == 201, voided.json()
    alpha = next(u for u in units if u.name == "Alpha Squad")
    promoted = umpire_api.post(
        f"/api/v1/units/{alpha.id}/leadership/", {"leadership": 1, "reason": "new sergeant"}
    )
    assert promoted.status_code == 201, promoted.json()
    assert umpire_api.post(f"{url}start/").status_code == 200
    assert _alpha(umpire_api, forces["Blue"], first, "before")["leadership"] == 1


def test_a_side_that_is_neither_before_nor_after_is_refused_even_without_a_battle(
    linked, umpire_api
):
    _, forces, *_ = linked
    for query in ({"side": "during"}, {"side": "during", "as_of": 1}):
        response = umpire_api.get(f"/api/v1/forces/{forces['Blue'].id}/", query)
        assert (response.status_code, response.json()["field"]) == (400, "side")
