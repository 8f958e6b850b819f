"""A battle run from a phone on the served demo: the umpire records direct fire with the dice the
prompt asks for, and a player's open battle page follows without being reloaded."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import log_in

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def fits_a_phone(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{page.url} is {width} px wide"


def squads_of(node):
    for unit in node["units"]:
        if unit["kind"] == "squad" and unit["status"] == "in_the_line":
            yield unit
        yield from squads_of(unit)


@pytest.fixture
def skirmish(demo_server):
    """A new battle of the demo campaign, in progress, with one squad a side."""
    server = demo_server
    forces = server.api("GET", f"/campaigns/{server.campaign_id}/forces/")["results"]
    side = {f["side"]: f for f in forces}
    day = server.api("GET", f"/campaigns/{server.campaign_id}/")["day"]
    battle = server.api(
        "POST",
        f"/campaigns/{server.campaign_id}/battles/",
        {
            "name": "Night patrol",
            "day": day,
            "sides": [
                {"side": "Blue", "force_ids": [side["Blue"]["id"]]},
                {"side": "Red", "force_ids": [side["Red"]["id"]]},
            ],
        },
    )
    blue = next(squads_of(server.api("GET", f"/forces/{side['Blue']['id']}/")))
    red = next(squads_of(server.api("GET", f"/forces/{side['Red']['id']}/")))
    server.api("POST", f"/battles/{battle['id']}/commit/", {"unit_ids": [blue["id"], red["id"]]})
    server.api("POST", f"/battles/{battle['id']}/start/")
    return {"battle": battle, "blue": blue, "red": red}


def test_the_umpire_records_fire_from_a_phone_and_the_player_sees_it_come_in(
    browser, demo_server, skirmish
):
    battle_url = f"{demo_server.url}/battles/{skirmish['battle']['id']}/"
    player = browser.new_context(viewport=PHONE, is_mobile=True).new_page()
    player.set_default_timeout(30_000)
    log_in(player, demo_server, "blue")
    player.goto(battle_url)
    assert "The battle began: turn 1." in player.inner_text("#log")
    assert player.is_visible("#live-note")
    lines_before = player.locator("#log li").count()

    umpire = browser.new_context(viewport=PHONE, is_mobile=True).new_page()
    umpire.set_default_timeout(30_000)
    log_in(umpire, demo_server, "umpire")
    umpire.goto(f"{demo_server.url}/campaigns/{demo_server.campaign_id}/battles/new/")
    fits_a_phone(umpire)
    umpire.goto(battle_url)
    fits_a_phone(umpire)
    umpire.click("text=Record an action")
    fits_a_phone(umpire)
    umpire.click("a[href$='/actions/direct_fire/']")
    fits_a_phone(umpire)
    umpire.select_option("#in-unit_id", skirmish["blue"]["id"])
    umpire.select_option("#in-target_id", skirmish["red"]["id"])
    umpire.fill("#in-range_bands", "3")
    umpire.fill("#in-men_firing", "4")
    umpire.fill("#in-small_arms_firepower", "2")
    umpire.select_option("#in-impact_die", "8")
    umpire.click("button[value=prompt]")
    fits_a_phone(umpire)
    labels = umpire.locator(".dice-fields label")
    assert "range die" in labels.nth(0).inner_text()
    # Three range bands, open ground: a D8 range die (P.35). Its 6 against the firer's 1 and
    # 1: no effect, nothing more to roll.
    faces = umpire.locator("input[name=face]")
    for n, face in enumerate(["6", "1", "1"]):
        faces.nth(n).fill(face)
    umpire.click("button[value=prompt]")
    assert "These are all the dice the action needs." in umpire.inner_text("#dice")
    umpire.click("button[value=table]")
    umpire.wait_for_url(re.compile(r".*/battles/[0-9a-f-]+/#log$"))
    assert "no effect" in umpire.inner_text(".messages")
    fits_a_phone(umpire)

    # The player's page, left open, shows the fire without a reload.
    player.locator("#log li").nth(lines_before).wait_for(timeout=45_000)
    fits_a_phone(player)
    # Closed, the pages stop asking for news of a battle later tests look at.
    player.context.close()
    umpire.context.close()
