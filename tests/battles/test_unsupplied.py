"""A unit short of supplies starts its next battle worse, through HTTP (SG2 P.60).

P.60 CAMPAIGN GAMES: if logistic support "is not provided (or simply cannot be got to the troops
in time), their Confidence and combat efficiency will suffer VERY greatly in the next and
subsequent battles", with no mechanism; option ``unsupplied_effect`` gives one. Alpha Squad is
Fresh: supplied, it starts Confident (P.19).
"""

from __future__ import annotations

import pytest

from battles.models import Participant
from tests.battles.test_after_action import BLUE, after_action, end, of_type, start
from tests.battles.test_supplies_after_action import campaign_with, cut_supplies

pytestmark = pytest.mark.django_db


def committed(api, umpire, *, fatigue: str = "fresh", supplied: bool = False, **options):
    blue = BLUE.replace("fatigue: fresh", f"fatigue: {fatigue}")
    campaign, forces, alpha, red = campaign_with(umpire, api, blue, **options)
    if not supplied:
        cut_supplies(api, alpha)
    url = start(api, campaign, forces, [alpha, red], name="Hill 402", day=3)
    return campaign, url, alpha, Participant.objects.get(unit_id=alpha.id)


@pytest.mark.parametrize(
    ("options", "fatigue", "confidence"),
    [
        ({}, "fresh", "steady"),
        ({"unsupplied_effect": "confidence_one_lower"}, "fresh", "steady"),
        ({"unsupplied_effect": "fatigue_one_worse"}, "tired", "steady"),
        ({"unsupplied_effect": "none"}, "fresh", "confident"),
    ],
)
def test_an_unsupplied_unit_starts_its_battle_worse_p60(
    umpire, umpire_api, options, fatigue, confidence
):
    _, url, alpha, participant = committed(umpire_api, umpire, **options)
    assert (participant.fatigue, participant.starting_confidence) == (fatigue, confidence)
    assert participant.confidence == confidence
    battle = umpire_api.get(url).json()
    (shown,) = [p for p in battle["participants"] if p["unit_id"] == str(alpha.id)]
    assert shown["starting_confidence"] == confidence


def test_a_supplied_unit_starts_as_its_fatigue_says_p19(umpire, umpire_api):
    *_, participant = committed(umpire_api, umpire, supplied=True)
    assert (participant.fatigue, participant.starting_confidence) == ("fresh", "confident")


def test_an_exhausted_unsupplied_unit_starts_broken(umpire, umpire_api):
    """Exhausted starts Shaken (P.19); one level lower is Broken."""
    *_, participant = committed(umpire_api, umpire, fatigue="exhausted")
    assert participant.starting_confidence == "broken"


def test_an_exhausted_unit_cannot_fight_more_than_exhausted(umpire, umpire_api):
    *_, participant = committed(
        umpire_api, umpire, fatigue="exhausted", unsupplied_effect="fatigue_one_worse"
    )
    assert (participant.fatigue, participant.starting_confidence) == ("exhausted", "shaken")


def test_the_battle_log_says_why_the_unit_starts_lower(umpire, umpire_api):
    *_, url, _, _ = committed(umpire_api, umpire)
    lines = [entry["summary"] for entry in umpire_api.get(f"{url}log/").json()["results"]]
    assert (
        "Alpha Squad committed for Blue, fresh, starting steady (short of supplies: one "
        "confidence level lower)." in lines
    )


def test_fighting_a_level_worse_it_drops_from_there_after_the_battle_p61(umpire, umpire_api):
    """With fatigue_one_worse the Fresh unit fights Tired; after the battle it drops one level
    from the level it fought at (P.61): Exhausted."""
    _, url, alpha, _ = committed(umpire_api, umpire, unsupplied_effect="fatigue_one_worse")
    end(umpire_api, url)
    (dropped,) = [
        p
        for p in of_type(after_action(umpire_api, url, []), "battles.UnitFatigueDropped")
        if p["unit_id"] == str(alpha.id)
    ]
    assert (dropped["fatigue_before"], dropped["fatigue_after"]) == ("fresh", "exhausted")
