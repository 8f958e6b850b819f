"""Tests for the Fast and Dirty traits the battle actions apply (rules.fad.traits): mission bonus
traits (FaD p.62-63), Under Fire and Pinned ignored (p.24, p.31, p.40, p.41), an attached heavy
weapons team (p.29) and Embolden (p.34)."""

from __future__ import annotations

import pytest

from rules.fad.morale import check_infantry_resolve
from rules.fad.scales import Resolve
from rules.fad.traits import (
    MISSION_BONUS_TRAITS,
    BonusTraits,
    ResolveCount,
    TraitError,
    check_mission_bonus,
    ignores_pinned,
    marker_in_effect,
    takes_morale_test,
    trait_key,
    with_attached_team,
)
from rules.fad.tree import Mission


def test_trait_keys_from_a_rosters_text():
    assert trait_key(" Shock Troops ") == "shock_troops"
    assert trait_key("shock-troops") == trait_key("shock_troops") == "shock_troops"
    assert trait_key("Hardened") == "hardened"


def test_every_mission_cards_bonus_traits_p62_p63():
    assert set(MISSION_BONUS_TRAITS) == set(Mission)
    assert MISSION_BONUS_TRAITS[Mission.ASSAULT] == ("assault_troops", "hardened")
    assert MISSION_BONUS_TRAITS[Mission.EXPAND] == ("grizzled", "tough")
    assert MISSION_BONUS_TRAITS[Mission.INFILTRATE] == ("infiltrate", "stealth")
    assert MISSION_BONUS_TRAITS[Mission.INTERFERE] == ("recon",)
    assert MISSION_BONUS_TRAITS[Mission.PATROL] == ("agile", "elusive")
    assert MISSION_BONUS_TRAITS[Mission.SWEEP] == ("brave", "shock_troops")
    # "The victory conditions and the bonuses are per the Sweep mission" (p.62).
    assert (
        MISSION_BONUS_TRAITS[Mission.ESCALATING_ENGAGEMENT] == MISSION_BONUS_TRAITS[Mission.SWEEP]
    )
    # Hold's bonus is field defences, Strike's a sniper: no trait.
    assert MISSION_BONUS_TRAITS[Mission.HOLD] == MISSION_BONUS_TRAITS[Mission.STRIKE] == ()


def test_two_traits_go_to_one_unit_or_are_split_between_two_p62():
    one = check_mission_bonus("assault", [BonusTraits("a", ("Hardened", "Assault Troops"))])
    assert one == (BonusTraits("a", ("hardened", "assault_troops")),)
    two = check_mission_bonus(
        Mission.SWEEP, [BonusTraits("a", ("brave",)), BonusTraits("b", ("shock_troops",))]
    )
    assert [g.unit for g in two] == ["a", "b"]
    assert check_mission_bonus("interfere", [BonusTraits("a", ("recon",))])[0].traits == ("recon",)


@pytest.mark.parametrize(
    ("mission", "given", "code"),
    [
        ("hold", [BonusTraits("a", ("hardened",))], "mission_bonus.no_traits"),
        ("strike", [], "mission_bonus.no_traits"),
        ("assault", [BonusTraits("a", ("hardened",))], "mission_bonus.wrong_traits"),
        ("assault", [BonusTraits("a", ("hardened", "brave"))], "mission_bonus.wrong_traits"),
        (
            "assault",
            [BonusTraits("a", ("hardened", "hardened", "assault_troops"))],
            "mission_bonus.wrong_traits",
        ),
        (
            "assault",
            [BonusTraits("a", ("hardened",)), BonusTraits("a", ("assault_troops",))],
            "mission_bonus.unit_twice",
        ),
        (
            "assault",
            [BonusTraits("a", ("hardened", "assault_troops")), BonusTraits("b", ())],
            "mission_bonus.no_traits_given",
        ),
        ("interfere", [BonusTraits("a", ("recon",)), BonusTraits("b", ("recon",))], None),
    ],
)
def test_a_bonus_that_does_not_match_the_mission_card_is_refused(mission, given, code):
    with pytest.raises(TraitError) as refused:
        check_mission_bonus(mission, given)
    assert refused.value.code == (code or "mission_bonus.wrong_traits")


def test_relentless_and_last_stand_ignore_under_fire_and_pinned_p41_p31():
    for marker in ("under_fire", "pinned"):
        assert marker_in_effect(marker) == marker
        assert marker_in_effect(marker, traits=["Relentless"]) == ""
        assert marker_in_effect(marker, last_stand=True) == ""
    assert marker_in_effect("") == ""
    assert ignores_pinned(traits=["relentless"])
    assert ignores_pinned(last_stand=True)
    assert not ignores_pinned(traits=["hardened", "berserk"])


def test_hardened_ignores_under_fire_until_its_first_casualty_p40():
    assert marker_in_effect("under_fire", traits=["hardened"]) == ""
    assert marker_in_effect("under_fire", traits=["hardened"], casualties=1) == "under_fire"
    # Pinned is not Under Fire: a Hardened unit pinned stays pinned.
    assert marker_in_effect("pinned", traits=["hardened"]) == "pinned"


def test_an_unknown_marker_is_refused():
    with pytest.raises(TraitError) as refused:
        marker_in_effect("suppressed")
    assert refused.value.code == "marker.unknown"


def test_an_attached_heavy_weapons_team_counts_with_the_squad_p29():
    """A Steady squad of 7 breaks at 4 casualties (50% of 7 rounded up, p.13); with a team of 3
    attached the numbers are combined (p.29): 10 figures, breaking at 5."""
    squad, team = ResolveCount(7, 4), ResolveCount(3, 0)
    alone = check_infantry_resolve(resolve=Resolve.STEADY, original_size=7, casualties=4)
    assert alone.broken
    assert alone.break_point == 4
    combined = with_attached_team(squad, team)
    assert combined == ResolveCount(10, 4)
    check = check_infantry_resolve(
        resolve=Resolve.STEADY, original_size=combined.original_size, casualties=4
    )
    assert (check.break_point, check.broken) == (5, False)
    # The team's own casualties count too.
    assert with_attached_team(squad, ResolveCount(3, 1)).casualties == 5


@pytest.mark.parametrize("bad", [ResolveCount(0, 0), ResolveCount(3, -1)])
def test_combined_numbers_must_be_counts(bad):
    with pytest.raises(TraitError):
        with_attached_team(ResolveCount(7, 0), bad)
    with pytest.raises(TraitError):
        with_attached_team(bad, ResolveCount(3, 0))


def test_an_emboldened_unit_takes_no_morale_test_at_its_next_activation_p34():
    assert takes_morale_test(broken=True, forced=False)
    assert takes_morale_test(broken=False, forced=True)
    assert not takes_morale_test(broken=False, forced=False)
    assert not takes_morale_test(broken=True, forced=False, emboldened=True)
    assert not takes_morale_test(broken=False, forced=True, emboldened=True)
