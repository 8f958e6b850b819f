"""A power-armour suit wrecked in battle, through HTTP: kept on the roster, sent for repair at
the after-action, repaired by the calendar, and its wearer unarmoured until then.

SG2 P.40 POWER ARMOUR TROOP CASUALTIES: a casualty in power armour not killed outright rolls a
D6 at once; on a 5 "he is unhurt but the suit itself is wrecked" and, got out of it, he is "any
unarmoured figure" (P.28: no effective armour is basic battledress, D4). The book is silent on
the suit in a campaign (digest AMBIG-09): option ``pa_suit_repair_days`` (3, like a disabled
vehicle's repair), and P.61 REST AND RECOVERY: "in the field and/or without suitable supplies,
DOUBLE all times given". The option is flipped through ``PATCH /api/v1/campaigns/{id}/options/``.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

from eventlog import projections
from rosters.models import Force, Trooper, Unit, UnitHistoryEntry
from tests.battles.test_after_action import RED, act, after_action, end, of_type, start
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

POWER = """\
name: Blue armoured patrol
side: Blue
units:
  - name: Power Squad
    kind: squad
    quality: veteran
    leadership: 2
    fatigue: fresh
    toe_strength: 3
    troopers:
      - {name: Sgt Iver Vale, role: leader, armour_die: 10, power_armour: true}
      - {name: Pte Mira Holm, armour_die: 10, power_armour: true}
      - {name: Pte Cole Brand, armour_die: 10, power_armour: true}
"""


def power_campaign(umpire, api, *, status: str | None = None, **options):
    """Blue's power squad (in the line, or at ``status``) against the Red squad."""
    blue = POWER
    if status is not None:
        blue = POWER.replace("toe_strength: 3\n", f"toe_strength: 3\n    status: {status}\n")
    campaign = campaign_for(umpire)
    if options:
        # The umpire flips the option through the API, saying why.
        response = api.patch(
            f"/api/v1/campaigns/{campaign.id}/options/",
            {"changes": options, "reason": "the campaign's briefing"},
        )
        assert response.status_code == 200, response.json()
    for text in (blue, RED):
        response = api.post(f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text})
        assert response.status_code == 201, response.json()
    forces = {f.side: f for f in Force.objects.filter(campaign_id=campaign.id)}
    squad = Unit.objects.get(force_id=forces["Blue"].id, name="Power Squad")
    red = Unit.objects.get(force_id=forces["Red"].id, name="Red Squad")
    return campaign, forces, squad, red


def holm() -> Trooper:
    return Trooper.objects.get(name="Pte Mira Holm")


def wreck_holms_suit(api, url, squad: Unit) -> None:
    """Holm named wounded; his P.40 D6 of 5: unhurt, suit wrecked."""
    act(api, url, "casualties", {
        "unit_id": str(squad.id), "mode": "named", "dice": [5],
        "casualties": [{"trooper_id": str(holm().id), "result": "wounded"}],
    })  # fmt: skip


def trooper_api(api, trooper: Trooper) -> dict:
    response = api.get(f"/api/v1/troopers/{trooper.id}/")
    assert response.status_code == 200, response.json()
    return response.json()


def advance(api, campaign, day: int) -> None:
    response = api.post(f"/api/v1/campaigns/{campaign.id}/calendar/", {"to_day": day})
    assert response.status_code in (200, 201), response.json()


def battle_with_wrecked_suit(api, campaign, forces, squad, red, *, day: int = 5) -> dict:
    """Fight a battle on ``day`` in which Holm's suit is wrecked; its after-action's suits."""
    url = start(api, campaign, forces, [squad, red], name="Hill 402", day=day)
    wreck_holms_suit(api, url, squad)
    end(api, url)
    events = after_action(api, url, [])
    (suits,) = of_type(events, "battles.PowerSuitsSentForRepair")
    return suits


def test_a_wrecked_suit_is_repaired_after_three_days_doubled_in_the_line(umpire, umpire_api):
    """Battle on day 5, the squad in the line (the field, P.61): 3 days doubled, 6: the suit is
    back on day 11, not before."""
    campaign, forces, squad, red = power_campaign(umpire, umpire_api)
    url = start(umpire_api, campaign, forces, [squad, red], name="Hill 402", day=5)
    wreck_holms_suit(umpire_api, url, squad)
    seen = trooper_api(umpire_api, holm())
    assert (seen["status"], seen["suit_wrecked"], seen["suit_repaired_on_day"]) == (
        "fit",
        True,
        None,
    )
    end(umpire_api, url)
    (suits,) = of_type(after_action(umpire_api, url, []), "battles.PowerSuitsSentForRepair")
    assert (suits["unit_id"], suits["location"], suits["supplied"]) == (
        str(squad.id),
        "field",
        True,
    )
    assert suits["suits"] == [
        {
            "trooper_id": str(holm().id),
            "repair_days": 3,
            "days": 6,
            "doubled": True,
            "repaired_on_day": 11,
        }
    ]
    seen = trooper_api(umpire_api, holm())
    assert (seen["suit_wrecked"], seen["suit_repaired_on_day"]) == (True, 11)
    detail = umpire_api.get(f"/api/v1/units/{squad.id}/").json()
    row = next(t for t in detail["troopers"] if t["name"] == "Pte Mira Holm")
    assert (row["suit_wrecked"], row["suit_repaired_on_day"]) == (True, 11)
    assert UnitHistoryEntry.objects.filter(
        unit_id=squad.id,
        summary="Power suits after Hill 402: Pte Mira Holm's suit wrecked; repaired on day 11 "
        "(3 days, doubled in the field: 6).",
    ).exists()

    advance(umpire_api, campaign, 10)
    assert (holm().suit_wrecked, holm().suit_repaired_on_day) == (True, 11)
    advance(umpire_api, campaign, 11)
    assert (holm().suit_wrecked, holm().suit_repaired_on_day) == (False, None)
    history = umpire_api.get(f"/api/v1/units/{squad.id}/history/").json()["results"]
    assert history[-1]["summary"] == (
        "Day 11: Pte Mira Holm's power suit repaired; he is power-armoured again."
    )
    record = [line["summary"] for line in trooper_api(umpire_api, holm())["service_record"]]
    assert record[-2:] == [
        "After Hill 402: suit wrecked; repaired on day 11 (3 days, doubled in the field: 6).",
        "Day 11: his power suit repaired.",
    ]

    before = projections.dump_rows(campaign.id)
    call_command("rebuild_projections", "--no-progress")
    assert projections.dump_rows(campaign.id) == before


@pytest.mark.parametrize(
    ("status", "supplied", "options", "days", "doubled"),
    [
        # A safe area with supplies: the option's days as they stand.
        ("safe_area", True, {}, 3, False),
        ("rear_area", True, {}, 3, False),
        # P.61: short of supplies doubles them, wherever the unit is.
        ("safe_area", False, {}, 6, True),
        # The option flipped: 1 day, doubled in the line to 2.
        ("safe_area", True, {"pa_suit_repair_days": 1}, 1, False),
        (None, True, {"pa_suit_repair_days": 1}, 2, True),
        # Repaired by the next day of the calendar.
        ("safe_area", True, {"pa_suit_repair_days": 0}, 0, False),
    ],
)
def test_the_repair_days_are_the_option_doubled_in_the_field_or_unsupplied(
    umpire, umpire_api, status, supplied, options, days, doubled
):
    campaign, forces, squad, red = power_campaign(umpire, umpire_api, status=status, **options)
    if not supplied:
        response = umpire_api.post(
            f"/api/v1/units/{squad.id}/supplies/", {"supplied": False, "reason": "road cut"}
        )
        assert response.status_code == 201, response.json()
    suits = battle_with_wrecked_suit(umpire_api, campaign, forces, squad, red, day=5)
    (suit,) = suits["suits"]
    assert (suit["repair_days"], suit["days"], suit["doubled"], suit["repaired_on_day"]) == (
        options.get("pa_suit_repair_days", 3),
        days,
        doubled,
        5 + days,
    )
    if days:
        advance(umpire_api, campaign, 5 + days - 1)
        assert holm().suit_wrecked is True
    advance(umpire_api, campaign, 5 + days if days else 6)
    assert (holm().suit_wrecked, holm().suit_repaired_on_day) == (False, None)


def fire_one_wound_at_holm(api, url, squad: Unit, dice: list[int]) -> dict:
    """One potential hit, impact D10, counted from Holm, so an allocation die of 1 is his."""
    response = api.post(
        f"{url}actions/casualties/",
        {
            "unit_id": str(squad.id),
            "mode": "allocate",
            "hits": 1,
            "impact_die": 10,
            "counting_order": [str(holm().id)],
            "dice": dice,
        },
    )
    assert response.status_code == 201, response.json()
    (event,) = response.json()["events"]
    return event["payload"]


def test_until_repaired_the_wearer_fights_unarmoured(umpire, umpire_api):
    """Day 5: Holm's suit is wrecked, back on day 11. Committed again on day 7 he is an
    unarmoured figure (P.40, P.28): the squad's armour is mixed, so the hit is allocated first
    (P.36 NOTE: allocation D4 1, Holm), and he rolls D4 armour; impact 7 against 4 is a wound
    (above it, not above twice it, P.36), and with no suit no P.40 die follows: he is an
    untreated casualty. Once repaired (day 12) the same fire meets his D10 and his suit."""
    campaign, forces, squad, red = power_campaign(umpire, umpire_api)
    battle_with_wrecked_suit(umpire_api, campaign, forces, squad, red, day=5)
    advance(umpire_api, campaign, 6)
    url = start(umpire_api, campaign, forces, [squad, red], name="Ridge 7", day=7)
    p = fire_one_wound_at_holm(umpire_api, url, squad, [1, 7, 4])
    assert p["allocated_first"] is True
    (hit,) = p["hits"]
    assert (hit["allocation_roll"], hit["armour_die"], hit["result"]) == (1, 4, "wound")
    (casualty,) = p["casualties"]
    assert (casualty["trooper_id"], casualty["status_after"]) == (str(holm().id), "wounded")
    assert casualty["power_armour_roll"] is None
    assert holm().status == "wounded"


def test_a_repaired_suit_protects_its_wearer_again(umpire, umpire_api):
    """The flip of the test above: with the suit repaired (1 day, doubled in the line: day 7)
    the same fire on day 8 rolls Holm's D10 armour, all three men alike, so no allocation comes
    first (P.36): impact 7 against 4 wounds him and his suit rolls P.40 at once (6: back in
    action)."""
    campaign, forces, squad, red = power_campaign(umpire, umpire_api, pa_suit_repair_days=1)
    battle_with_wrecked_suit(umpire_api, campaign, forces, squad, red, day=5)
    advance(umpire_api, campaign, 7)
    assert holm().suit_wrecked is False
    url = start(umpire_api, campaign, forces, [squad, red], name="Ridge 7", day=8)
    p = fire_one_wound_at_holm(umpire_api, url, squad, [7, 4, 1, 6])
    assert p["allocated_first"] is False
    (hit,) = p["hits"]
    assert (hit["armour_die"], hit["result"], hit["trooper_id"]) == (10, "wound", str(holm().id))
    (casualty,) = p["casualties"]
    assert (casualty["power_armour_roll"], casualty["status_after"]) == (6, "fit")
    assert holm().status == "fit"
