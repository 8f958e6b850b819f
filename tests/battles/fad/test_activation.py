"""The Fast and Dirty turn sequence through HTTP (FaD p.12): alternating activations from the
initiative winner, one activation per unit per turn, the optional card activation, and the one
action a unit takes in its activation.

The battle of :mod:`tests.battles.fad.test_morale`: the Federation rifle platoon (Platoon Command
Squad, Rifle Squads 1-3) against four insurgent units (Militia Squad, Armoured Car Crew,
Lookouts, Sniper). A unit activates with ``fad_check_resolve``; none of them has casualties, so
their checks roll no dice.
"""

from __future__ import annotations

import pytest

from tests.battles.fad.table import refused
from tests.battles.fad.test_morale import (
    ORDER,
    SHOT_DICE,
    done,
    last_line,
    losses,
    make_battle,
    members,
    unit,
)
from tests.battles.helpers import assert_rebuild_keeps_rows

pytestmark = pytest.mark.django_db

CHECK = "fad_check_resolve"
DRAW = "fad_draw_activation"


def activate(api, url, unit_row) -> dict:
    (checked,) = done(api, url, CHECK, {"unit_id": str(unit_row.id)})
    return checked


def ids(forces, side, *names) -> list:
    return [unit(forces, side, name) for name in names]


# --- alternating activations --------------------------------------------------------------------


def test_the_players_alternate_from_the_initiative_winner_p12(umpire, umpire_api):
    """p.12: the Insurgents win the initiative (2 against 5) and activate first; then the
    Federation, then the Insurgents again. No side activates twice running while the other has
    a unit still to activate, and no unit twice in a turn; the next turn starts afresh."""
    campaign, forces, url = make_battle(umpire, umpire_api)
    squad1, squad2 = ids(forces, "Federation", "Rifle Squad 1", "Rifle Squad 2")
    militia, lookouts = ids(forces, "Insurgents", "Militia Squad", "Lookouts")
    done(umpire_api, url, "fad_initiative", {}, [2, 5])

    first = refused(
        umpire_api, campaign, url, CHECK, {"unit_id": str(squad1.id)}, 409, "activation.other_side"
    )
    assert first["field"] == "unit_id"
    assert "Insurgents won the initiative and activates first (p.12)" in first["message"]
    activate(umpire_api, url, militia)
    refused(
        umpire_api,
        campaign,
        url,
        CHECK,
        {"unit_id": str(lookouts.id)},
        409,
        "activation.other_side",
    )
    activate(umpire_api, url, squad1)
    again = refused(
        umpire_api,
        campaign,
        url,
        CHECK,
        {"unit_id": str(squad1.id)},
        409,
        "activation.already_activated",
    )
    assert again["message"] == "No unit already activated this turn may be activated again (p.12)."
    refused(
        umpire_api, campaign, url, CHECK, {"unit_id": str(squad2.id)}, 409, "activation.other_side"
    )
    activate(umpire_api, url, lookouts)
    activate(umpire_api, url, squad2)

    # The prompt of an activation out of turn is refused the same way.
    prompt = umpire_api.get(f"{url}actions/{CHECK}/", {"unit_id": str(militia.id)})
    assert (prompt.status_code, prompt.json()["code"]) == (409, "activation.already_activated")

    assert umpire_api.post(f"{url}turn/").status_code == 200
    activate(umpire_api, url, squad1)
    assert_rebuild_keeps_rows()


def test_a_side_that_runs_out_of_units_lets_the_other_activate_the_rest_p12(umpire, umpire_api):
    """p.12: "If one player runs out of units, his opponent may activate his remaining units one
    at a time." The Lookouts and the Sniper are wiped out, so the Insurgents have two units to
    the Federation's four: after two each, the Federation activates its last two in a row."""
    campaign, forces, url = make_battle(umpire, umpire_api)
    lookouts, sniper = ids(forces, "Insurgents", "Lookouts", "Sniper")
    for gone in (lookouts, sniper):
        losses(umpire_api, url, gone, killed=list(members(gone).values()))
    militia, car = ids(forces, "Insurgents", "Militia Squad", "Armoured Car Crew")
    command, squad1, squad2, squad3 = ids(
        forces,
        "Federation",
        "Platoon Command Squad",
        "Rifle Squad 1",
        "Rifle Squad 2",
        "Rifle Squad 3",
    )
    done(umpire_api, url, "fad_initiative", {}, [6, 1])
    for unit_row in (squad1, militia, squad2, car, squad3, command):
        activate(umpire_api, url, unit_row)
    refused(
        umpire_api,
        campaign,
        url,
        CHECK,
        {"unit_id": str(militia.id)},
        409,
        "activation.already_activated",
    )


# --- one action in an activation (p.12 UNIT ACTIVATION) ----------------------------------------

SHOOT = "fad_shoot"
END = "fad_activation_end"


def squad1_shoots_militia(forces) -> dict:
    """Rifle Squad 1 fires on the militia 10" away (the shot of test_morale: 3 hits, Voss
    wounded, Odell killed, the militia Under Fire)."""
    militia = unit(forces, "Insurgents", "Militia Squad")
    figures = members(militia)
    return {
        "unit_id": str(unit(forces, "Federation", "Rifle Squad 1").id),
        "target_id": str(militia.id),
        "distance": 10,
        "basic_weapon": "assault_rifles",
        "riflemen": 7,
        "support_weapons": ["squad_automatic_weapon"],
        "target_order": [str(figures[name].id) for name in ORDER],
    }


def fires_low_tech_rifles(firer, target, riflemen: int) -> dict:
    """A volley of low-tech rifles at a target in hard cover 6" away: with a 1 and a 1 it makes
    no hit, so it needs no other die (p.18: 5 points a hit behind hard cover)."""
    return {
        "unit_id": str(firer.id),
        "target_id": str(target.id),
        "distance": 6,
        "basic_weapon": "low_tech_rifles",
        "riflemen": riflemen,
        "concealment": "hard_cover",
        "target_order": [str(t.id) for t in members(target).values()],
    }


def test_only_the_activated_unit_acts_and_only_once_p12(umpire, umpire_api):
    """p.12: "players will go back and forth activating their units one at a time", and an
    activated unit "may perform one these Actions": Engage the Enemy, Infantry "Move, and then
    either Close Assault or Shoot". Rifle Squad 1 activates and shoots; while its activation is
    open no other unit acts, not the militia it shot, not Rifle Squad 2 which has not activated,
    and Squad 1 does not shoot again. Once it ends its activation the Lookouts activate and
    shoot."""
    campaign, forces, url = make_battle(umpire, umpire_api)
    squad1, squad2 = ids(forces, "Federation", "Rifle Squad 1", "Rifle Squad 2")
    militia, lookouts = ids(forces, "Insurgents", "Militia Squad", "Lookouts")
    done(umpire_api, url, "fad_initiative", {}, [5, 2])
    activate(umpire_api, url, squad1)
    shot = squad1_shoots_militia(forces)
    done(umpire_api, url, SHOOT, shot, SHOT_DICE)

    back = refused(
        umpire_api,
        campaign,
        url,
        SHOOT,
        fires_low_tech_rifles(militia, squad1, 3),
        409,
        "activation.other_unit_active",
    )
    assert back["field"] == "unit_id"
    assert back["message"].startswith("Rifle Squad 1 is the unit activated (p.12): only it acts")
    refused(
        umpire_api,
        campaign,
        url,
        SHOOT,
        fires_low_tech_rifles(squad2, lookouts, 6) | {"basic_weapon": "assault_rifles"},
        409,
        "activation.other_unit_active",
    )
    # Nor does another unit take its Command Response test or end its activation (p.25, p.24).
    for action in ("fad_command_response", END):
        refused(
            umpire_api,
            campaign,
            url,
            action,
            {"unit_id": str(militia.id)},
            409,
            "activation.other_unit_active",
        )
    at_lookouts = fires_low_tech_rifles(squad1, lookouts, 7) | {"basic_weapon": "assault_rifles"}
    again = refused(umpire_api, campaign, url, SHOOT, at_lookouts, 409, "activation.action_taken")
    assert again["field"] == "unit_id"
    assert again["message"].startswith("Rifle Squad 1 has taken its action this activation (p.12)")
    assault = {"unit_id": str(squad1.id), "target_id": str(militia.id)}
    refused(umpire_api, campaign, url, "fad_close_assault", assault, 409, "activation.action_taken")

    (ended,) = done(umpire_api, url, END, {"unit_id": str(squad1.id)})
    assert ended["payload"]["marker_removed"] is None
    assert last_line(umpire_api, url) == "Rifle Squad 1 finished its activation."
    activate(umpire_api, url, lookouts)
    (fired,) = done(umpire_api, url, SHOOT, fires_low_tech_rifles(lookouts, squad1, 2), [1, 1])
    assert (fired["payload"]["unit_id"], fired["payload"]["hits"]) == (str(lookouts.id), 0)
    assert_rebuild_keeps_rows()


def test_the_next_unit_to_activate_ends_the_last_ones_activation_p12(umpire, umpire_api):
    """ "The first player activates a unit, then the second player activates one" (p.12): the
    Lookouts activating closes Rifle Squad 1's activation without fad_activation_end; then the
    Lookouts act, and Squad 1 no longer does."""
    campaign, forces, url = make_battle(umpire, umpire_api)
    (squad1,) = ids(forces, "Federation", "Rifle Squad 1")
    (lookouts,) = ids(forces, "Insurgents", "Lookouts")
    activate(umpire_api, url, squad1)
    done(umpire_api, url, SHOOT, squad1_shoots_militia(forces), SHOT_DICE)
    activate(umpire_api, url, lookouts)
    done(umpire_api, url, SHOOT, fires_low_tech_rifles(lookouts, squad1, 2), [1, 1])
    volley = fires_low_tech_rifles(squad1, lookouts, 7) | {"basic_weapon": "assault_rifles"}
    refused(umpire_api, campaign, url, SHOOT, volley, 409, "activation.other_unit_active")


def test_a_command_action_is_two_different_actions_p12(umpire, umpire_api):
    """p.12 Command (Advanced Rules): "Infantry units can take any two of the following actions:
    Demolition, call for Indirect Artillery Fire, Recover Wounded, Scout, or Shoot." Rifle Squad
    2, one figure lying wounded, activates, treats him (a 5: stabilised, p.35) and shoots; a
    third action, an artillery call, is refused, and so is a close assault."""
    campaign, forces, url = make_battle(umpire, umpire_api)
    (squad2,) = ids(forces, "Federation", "Rifle Squad 2")
    (militia,) = ids(forces, "Insurgents", "Militia Squad")
    losses(umpire_api, url, squad2, wounded=[members(squad2)["Pte Tariq Tanner"]])
    activate(umpire_api, url, squad2)
    (treated,) = done(umpire_api, url, "fad_recover_wounded", {"unit_id": str(squad2.id)}, [5])
    assert [figure["result"] for figure in treated["payload"]["treated"]] == ["stabilised"]
    volley = fires_low_tech_rifles(squad2, militia, 6) | {"basic_weapon": "assault_rifles"}
    done(umpire_api, url, SHOOT, volley, [1, 1])
    call = {
        "unit_id": str(squad2.id),
        "battery": "Valley guns",
        "weapon": "mortar_light",
        "battery_quality": "regular",
    }
    refused(umpire_api, campaign, url, "fad_artillery_call", call, 409, "activation.action_taken")
    assault = {"unit_id": str(squad2.id), "target_id": str(militia.id)}
    refused(umpire_api, campaign, url, "fad_close_assault", assault, 409, "activation.action_taken")


def test_with_no_activation_recorded_any_unit_acts_as_the_table_records_p12(umpire, umpire_api):
    """An umpire who records only results checks no unit's Resolve: the shots are taken as he
    records them, Rifle Squad 1 twice and the Lookouts in between; so too in a turn after one
    whose activations were recorded."""
    _campaign, forces, url = make_battle(umpire, umpire_api)
    (squad1,) = ids(forces, "Federation", "Rifle Squad 1")
    (lookouts,) = ids(forces, "Insurgents", "Lookouts")
    done(umpire_api, url, SHOOT, squad1_shoots_militia(forces), SHOT_DICE)
    done(umpire_api, url, SHOOT, fires_low_tech_rifles(lookouts, squad1, 2), [1, 1])
    volley = fires_low_tech_rifles(squad1, lookouts, 7) | {"basic_weapon": "assault_rifles"}
    done(umpire_api, url, SHOOT, volley, [1, 1])

    activate(umpire_api, url, squad1)
    assert umpire_api.post(f"{url}turn/").status_code == 200
    done(umpire_api, url, SHOOT, fires_low_tech_rifles(lookouts, squad1, 2), [1, 1])
    done(umpire_api, url, SHOOT, volley, [1, 1])


# --- card activation ------------------------------------------------------------------------------


def battle_order(api, url) -> list[str]:
    return [p["unit_id"] for p in api.get(url).json()["participants"]]


def test_the_card_drawn_with_table_dice_names_the_unit_that_activates_p12(umpire, umpire_api):
    """p.12 Optional - Card Activation Rule: one card for every unit, eight here, turned over one
    at a time; a unit activates when its card is drawn. Eight cards are drawn with a d8 read in
    the battle's order of its units: a 6 is the sixth, the Armoured Car Crew. Then seven are left
    on a d8: an 8 is past the last whole round and rolled again, and a 1 is the first card, the
    Platoon Command Squad."""
    campaign, forces, url = make_battle(umpire, umpire_api, {"turn_card_activation": True})
    order = battle_order(umpire_api, url)
    car, militia = ids(forces, "Insurgents", "Armoured Car Crew", "Militia Squad")
    (command,) = ids(forces, "Federation", "Platoon Command Squad")
    assert (order[5], order[0]) == (str(car.id), str(command.id))

    refused(umpire_api, campaign, url, CHECK, {"unit_id": str(car.id)}, 409, "activation.not_drawn")
    prompt = umpire_api.get(f"{url}actions/{DRAW}/").json()
    assert [(d["die"], d["purpose"]) for d in prompt["dice"]] == [(8, "activation card: 1-8")]

    (drawn,) = done(umpire_api, url, DRAW, {}, [6])
    assert drawn["type"] == "battles.FadActivationCardDrawn"
    p = drawn["payload"]
    assert (p["number"], p["unit_id"], p["side"], p["rerolls"]) == (6, str(car.id), "Insurgents", 0)
    assert p["deck"] == order
    assert [(d["die"], d["result"], d["source"]) for d in p["dice"]] == [(8, 6, "table")]
    assert last_line(umpire_api, url) == (
        "Activation card drawn for turn 1: card 6 of the 8 left, Armoured Car Crew (Insurgents), "
        "which activates next. [d8 6; table]"
    )
    refused(umpire_api, campaign, url, DRAW, {}, 409, "activation.card_pending", [1])
    refused(
        umpire_api, campaign, url, CHECK, {"unit_id": str(militia.id)}, 409, "activation.not_drawn"
    )
    activate(umpire_api, url, car)
    refused(
        umpire_api,
        campaign,
        url,
        CHECK,
        {"unit_id": str(car.id)},
        409,
        "activation.already_activated",
    )

    (second,) = done(umpire_api, url, DRAW, {}, [8, 1])
    p = second["payload"]
    assert (p["number"], p["unit_id"], p["rerolls"]) == (1, str(command.id), 1)
    assert p["deck"] == [u for u in order if u != str(car.id)]
    assert [d["result"] for d in p["dice"]] == [8, 1]
    assert "after 1 throw past the last whole round rolled again" in last_line(umpire_api, url)
    activate(umpire_api, url, command)
    assert_rebuild_keeps_rows()


def test_the_server_draws_the_rest_of_the_deck_and_the_turn_ends_p12(umpire, umpire_api):
    """Without table dice a job draws the card with the server's die, of the deck's size. "When
    the deck is exhausted the turn ends. Shuffle the deck and begin the next turn" (p.12): after
    eight draws a ninth is refused until the turn advances."""
    campaign, _forces, url = make_battle(umpire, umpire_api, {"turn_card_activation": True})
    dice_by_deck = {8: 8, 7: 8, 6: 6, 5: 10, 4: 4, 3: 6, 2: 4}
    seen = []
    for left in range(8, 0, -1):
        response = umpire_api.post(f"{url}actions/{DRAW}/", {})
        assert response.status_code == 202, response.json()
        job = umpire_api.get(response.headers["Location"]).json()
        assert job["status"] == "succeeded", job
        p = job["events"][0]["payload"]
        assert len(p["deck"]) == left
        assert {d["source"] for d in p["dice"]} <= {"server"}
        assert {d["die"] for d in p["dice"]} == ({dice_by_deck[left]} if left > 1 else set())
        assert len(p["dice"]) == p["rerolls"] + (1 if left > 1 else 0)
        seen.append(p["unit_id"])
        done(umpire_api, url, CHECK, {"unit_id": p["unit_id"]})
    assert sorted(seen) == sorted(battle_order(umpire_api, url))
    refused(umpire_api, campaign, url, DRAW, {}, 409, "activation.deck_exhausted")

    assert umpire_api.post(f"{url}turn/").status_code == 200
    (drawn,) = done(umpire_api, url, DRAW, {}, [3])
    assert (drawn["payload"]["turn"], len(drawn["payload"]["deck"])) == (2, 8)


def test_cards_are_drawn_only_with_the_option(umpire, umpire_api):
    campaign, _forces, url = make_battle(umpire, umpire_api)
    refused(umpire_api, campaign, url, DRAW, {}, 422, "activation.cards_off", [3])
