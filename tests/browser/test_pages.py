"""Players and the umpire using the pages of the served demo campaign, in headless Chromium."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import log_in

pytestmark = pytest.mark.browser


def blue_unit_that_lost_men(server) -> dict:
    """A Blue squad whose strength before the first battle differs from now."""
    battles = server.api("GET", f"/campaigns/{server.campaign_id}/battles/")["results"]
    first = battles[0]["id"]
    forces = server.api("GET", f"/campaigns/{server.campaign_id}/forces/")["results"]
    blue = next(f for f in forces if f["side"] == "Blue")
    tree = server.api("GET", f"/forces/{blue['id']}/")
    then = server.api("GET", f"/forces/{blue['id']}/?as_of_battle={first}&side=before")

    def squads(node):
        for unit in node["units"]:
            if unit["kind"] == "squad":
                yield unit
            yield from squads(unit)

    before = {u["id"]: u["strength"] for u in squads(then)}
    for unit in squads(tree):
        if unit["strength"] != before[unit["id"]]:
            return {**unit, "strength_before": before[unit["id"]], "first": battles[0]}
    raise AssertionError("no Blue squad changed strength in the demo")


def test_a_player_reads_a_unit_its_charts_and_history_as_it_stood(page, demo_server):
    unit = blue_unit_that_lost_men(demo_server)
    log_in(page, demo_server, "blue")
    page.screenshot_as("campaigns")
    page.click("text=Operation Long Night (demo)")
    page.screenshot_as("dashboard")
    page.goto(f"{demo_server.url}/units/{unit['id']}/")
    assert page.inner_text("h1").startswith(unit["name"])
    charts = page.locator("svg.chart title")
    titles = [charts.nth(i).text_content() for i in range(charts.count())]
    assert any("Quality progression" in t for t in titles), titles
    assert any("Strength over time" in t for t in titles), titles
    assert page.locator(".timeline li").count() >= 3
    assert "raised in" in page.inner_text(".timeline")
    assert page.inner_text("#unit-strength").strip().startswith(str(unit["strength"]))
    page.screenshot_as("unit-now")

    page.select_option("#asof-select", label=f"before {unit['first']['name']}")
    page.click("form.asof button[type=submit]")
    page.wait_for_url(re.compile(r".*as_of_battle=.*"))
    assert page.inner_text("#unit-strength").strip().startswith(str(unit["strength_before"]))
    assert f"before {unit['first']['name']}" in page.inner_text("#asof-point")
    page.screenshot_as("unit-before-first-battle")


def test_a_player_cannot_reach_the_other_sides_details_or_the_umpire_forms(page, demo_server):
    forces = demo_server.api("GET", f"/campaigns/{demo_server.campaign_id}/forces/")["results"]
    red = next(f for f in forces if f["side"] == "Red")
    log_in(page, demo_server, "blue")
    response = page.goto(f"{demo_server.url}/forces/{red['id']}/")
    assert response.status in (403, 404) or "Red" not in page.inner_text("main .unit-tree")
    page.screenshot_as("other-side")
    page.goto(f"{demo_server.url}/campaigns/{demo_server.campaign_id}/")
    assert page.locator("form[action$='/void/']").count() == 0
    assert page.locator("form[action$='/calendar/']").count() == 0


def test_the_umpire_runs_an_after_action_and_the_hospital_list_changes(page, demo_server):
    server = demo_server
    forces = {
        f["side"]: f
        for f in server.api("GET", f"/campaigns/{server.campaign_id}/forces/")["results"]
    }
    day = server.api("GET", f"/campaigns/{server.campaign_id}/calendar/")["day"]
    battle = server.api(
        "POST",
        f"/campaigns/{server.campaign_id}/battles/",
        {
            "name": "Night raid",
            "day": day + 1,
            "sides": [
                {"side": "Blue", "force_ids": [forces["Blue"]["id"]]},
                {"side": "Red", "force_ids": [forces["Red"]["id"]]},
            ],
        },
    )
    squads = {}
    for side in ("Blue", "Red"):
        tree = server.api("GET", f"/forces/{forces[side]['id']}/")
        squads[side] = [
            u for p in tree["units"] for u in p["units"] if u["kind"] == "squad" and u["troopers"]
        ]
    server.api(
        "POST",
        f"/battles/{battle['id']}/commit/",
        {"unit_ids": [squads["Blue"][0]["id"], squads["Red"][0]["id"]]},
    )
    server.api("POST", f"/battles/{battle['id']}/start/")
    target = squads["Blue"][0]
    fit = [t for t in target["troopers"] if t["status"] == "fit"][:3]
    server.api(
        "POST",
        f"/battles/{battle['id']}/actions/casualties/",
        {
            "unit_id": target["id"],
            "mode": "named",
            "casualties": [{"trooper_id": t["id"], "result": "wounded"} for t in fit],
            "dice": [],
        },
    )
    server.api("POST", f"/battles/{battle['id']}/end/", {"winner": "Red"})

    log_in(page, server, "umpire")
    page.goto(f"{server.url}/campaigns/{server.campaign_id}/")
    hospital_before = page.inner_text("#hospital")
    page.screenshot_as("dashboard-before")
    page.goto(f"{server.url}/battles/{battle['id']}/")
    page.screenshot_as("battle-ended")
    page.click("#after-action button[type=submit]")
    page.wait_for_url(re.compile(r".*/jobs/.*"))
    page.wait_for_selector("text=succeeded")
    page.screenshot_as("job-done")
    page.goto(f"{server.url}/campaigns/{server.campaign_id}/")
    hospital_after = page.inner_text("#hospital")
    page.screenshot_as("dashboard-after")
    assert hospital_after != hospital_before
    assert any(t["name"] in hospital_after for t in fit) or "evacuated" in hospital_after
