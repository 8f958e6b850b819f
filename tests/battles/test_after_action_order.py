"""Which unit each table die of an after-action goes to, over HTTP (issue 11, item 7).

The after-action takes its table dice unit by unit in the roster's reading order: side by side
as the battle plan lists them, each side's forces in the plan's order, then each force's units
top to bottom as its roster (the force tree, depth first) lists them (docs/umpire-guide.md,
"After the battle"). With two platoons, each platoon's squads come before the next platoon's:
their ``Unit.order`` (a place among siblings) ties and must not decide.
"""

from __future__ import annotations

import pytest

from rosters.models import Force, Trooper, Unit
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db


def _squad(name: str) -> str:
    return f"""\
      - name: {name}
        kind: squad
        quality: regular
        leadership: 2
        troopers:
          - {{name: {name} Leader, role: leader, armour_die: 4}}
          - {{name: {name} Rifleman, armour_die: 4}}
"""


BLUE = (
    """\
name: Blue company
side: Blue
units:
  - name: 1st Platoon
    kind: platoon
    units:
"""
    + _squad("1-1 Squad")
    + _squad("1-2 Squad")
    + """\
  - name: 2nd Platoon
    kind: platoon
    units:
"""
    + _squad("2-1 Squad")
    + _squad("2-2 Squad")
)

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
"""

# The roster's reading order of Blue's squads, top to bottom.
READING_ORDER = ["1-1 Squad", "1-2 Squad", "2-1 Squad", "2-2 Squad"]


@pytest.fixture
def two_platoons(umpire, umpire_api):
    campaign = campaign_for(umpire, name="Two platoons")
    for text in (BLUE, RED):
        response = umpire_api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    units = {u.name: u for u in Unit.objects.filter(campaign_id=campaign.id)}
    return campaign, forces, units


def test_the_roster_lists_each_platoons_squads_before_the_next_platoons(two_platoons, umpire_api):
    """The documented order is the order the force's roster shows, depth first."""
    _, forces, units = two_platoons
    # The squads of both platoons share their places among siblings: the tie item 7 is about.
    assert units["1-1 Squad"].order == units["2-1 Squad"].order == 0
    tree = umpire_api.get(f"/api/v1/forces/{forces['Blue'].id}/").json()

    def names(nodes):
        for node in nodes:
            yield node["name"]
            yield from names(node["units"])

    squads = [n for n in names(tree["units"]) if n.endswith("Squad")]
    assert squads == READING_ORDER


def test_after_action_table_dice_go_to_squads_in_the_rosters_reading_order(
    two_platoons, umpire_api
):
    """One stabilised casualty in each of Blue's four squads; the after-action's table dice are
    their recovery D6s (SG2 P.61: 3+ back on duty after that many days), one per unit in the
    documented order. Dice 3, 4, 5, 6 must give 1-1 three days, 1-2 four, 2-1 five, 2-2 six,
    whatever order the units were committed in."""
    url, units, riflemen = _fought(two_platoons, umpire_api)
    response = umpire_api.post(f"{url}after-action/", {"dice": [3, 4, 5, 6]})
    assert response.status_code == 201, response.json()
    recovered = [
        e["payload"] for e in response.json()["events"]
        if e["type"] == "battles.CasualtiesRecovered"
    ]  # fmt: skip
    assert [p["unit_id"] for p in recovered] == [str(units[n].id) for n in READING_ORDER]
    for name, days in zip(READING_ORDER, (3, 4, 5, 6), strict=True):
        rifleman = Trooper.objects.get(pk=riflemen[name].id)
        assert (rifleman.status, rifleman.hospital_until_day) == ("in_hospital", 2 + days), name


def test_the_dice_prompt_names_each_unit_and_dice_keyed_by_unit_give_the_same_result(
    two_platoons, umpire_api
):
    """The prompt lists the four recovery D6s in the documented order, each for its trooper
    within his squad; the same faces keyed by squad, entered in any order, give the same days."""
    url, units, riflemen = _fought(two_platoons, umpire_api)
    prompt = umpire_api.get(f"{url}after-action/")
    assert prompt.status_code == 200, prompt.json()
    dice = prompt.json()["dice"]
    assert [(d["die"], d["for"], d["within"]) for d in dice] == [
        (6, str(riflemen[n].id), [str(units[n].id)]) for n in READING_ORDER
    ]
    assert prompt.json()["complete"] is False
    keyed = [
        {"face": days, "for": str(units[name].id)}
        for name, days in reversed(list(zip(READING_ORDER, (3, 4, 5, 6), strict=True)))
    ]
    response = umpire_api.post(f"{url}after-action/", {"dice": keyed})
    assert response.status_code == 201, response.json()
    for name, days in zip(READING_ORDER, (3, 4, 5, 6), strict=True):
        rifleman = Trooper.objects.get(pk=riflemen[name].id)
        assert (rifleman.status, rifleman.hospital_until_day) == ("in_hospital", 2 + days), name


def _fought(two_platoons, umpire_api):
    """The battle ended, with one stabilised casualty in each of Blue's squads."""
    campaign, forces, units = two_platoons
    plan = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": "Two platoons",
            "day": 2,
            "attacker": "Blue",
            "sides": [
                {"side": "Blue", "force_ids": [str(forces["Blue"].id)]},
                {"side": "Red", "force_ids": [str(forces["Red"].id)]},
            ],
        },
    )
    assert plan.status_code == 201, plan.json()
    url = f"/api/v1/battles/{plan.json()['id']}/"
    committed = ["2-2 Squad", "Red Squad", "1-2 Squad", "2-1 Squad", "1-1 Squad"]
    response = umpire_api.post(f"{url}commit/", {"unit_ids": [str(units[n].id) for n in committed]})
    assert response.status_code == 200, response.json()
    assert umpire_api.post(f"{url}start/").status_code == 200
    riflemen = {}
    for name in READING_ORDER:
        rifleman = Trooper.objects.get(unit_id=units[name].id, name=f"{name} Rifleman")
        riflemen[name] = rifleman
        for action, body in (
            ("casualties", {
                "mode": "named", "dice": [],
                "casualties": [{"trooper_id": str(rifleman.id), "result": "wounded"}],
            }),
            # No medic: a treatment D6 of 4 stabilises him (P.39: 3-5).
            ("medical_treatment", {"dice": [4]}),
        ):  # fmt: skip
            done = umpire_api.post(
                f"{url}actions/{action}/", {"unit_id": str(units[name].id), **body}
            )
            assert done.status_code == 201, done.json()
    assert umpire_api.post(f"{url}end/", {"winner": "Blue"}).status_code == 200
    return url, units, riflemen
