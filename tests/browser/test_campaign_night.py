"""A whole campaign night from phones (390 x 844), in headless Chromium, on a fresh installation:
the umpire creates a campaign and loads both rosters, invites a player for each side, who join
from browsers of their own; the umpire plans a battle, commits units, records casualties with
the table's dice and a medical treatment the server rolls, voids a mistaken action (a refusal
first, which writes nothing), and ends the battle. Both players file reports that disagree on
one casualty; the umpire sees the disagreement marked and accepts one version, which the roster
shows; the other player reads the decision; the after-action runs. Every page visited fits the
phone's width."""

from __future__ import annotations

import re

import pytest

from tests.browser.test_campaign_setup import (  # noqa: F401  (the module's server fixture)
    EXAMPLES,
    UMPIRE,
    UMPIRE_PASSWORD,
    PhoneChecks,
    fresh_server,
    phone_page,
)

pytestmark = pytest.mark.browser

PLAYERS = {"Blue": ("bea", "a lantern over the ford"), "Red": ("rory", "red kites above the weir")}
OBJECTIVE = "Take the ford"
# One potential hit, impact d6: impact 3 against armour 2 wounds (P.36), and the allocation die
# puts it on the first man counted.
FACES = ["3", "2", "1", "1", "1", "1"]


def enter_table_dice(page, faces: list[str]) -> None:
    """Ask the prompt for the dice, fill in the faces it asks for, until it has them all."""
    faces = list(faces)
    page.click("button[value=prompt]")
    for _ in range(6):
        if "These are all the dice the action needs." in page.inner_text("#dice"):
            return
        inputs = page.locator("input[name=face]")
        for n in range(inputs.count()):
            if not inputs.nth(n).input_value():
                inputs.nth(n).fill(faces.pop(0))
        page.click("button[value=prompt]")
    raise AssertionError("the prompt never completed")


def option_in_group(page, select: str, group: str, text: str) -> str:
    return page.locator(
        f"{select} optgroup[label='{group}'] option", has_text=text
    ).first.get_attribute("value")


def test_a_campaign_night_from_set_up_to_reconciled_reports(browser, fresh_server):  # noqa: F811
    url = fresh_server.url
    umpire_context, umpire = phone_page(browser, dark=True)
    checks = PhoneChecks("night-umpire")

    umpire.goto(f"{url}/login/")
    umpire.fill("input[name=username]", UMPIRE)
    umpire.fill("input[name=password]", UMPIRE_PASSWORD)
    umpire.click("main button[type=submit]")
    umpire.wait_for_url(re.compile(r".*/campaigns/$"))
    umpire.click("text=Create a campaign")
    umpire.wait_for_url(re.compile(r".*/campaigns/new/$"))
    umpire.click("details.options > summary")
    # Each player sees the other's force whole, so each can name the other side's men.
    umpire.select_option("select[name='options.forces_visibility']", "full")
    umpire.fill("input[name=name]", "The night at the ford")
    umpire.click("text=Create the campaign")
    umpire.wait_for_url(re.compile(r".*/rosters/$"))
    campaign_url = umpire.url.replace("rosters/", "")
    for side, name in (("Blue", "sg2-scenario-1-blue.yaml"), ("Red", "sg2-scenario-1-red.yaml")):
        umpire.set_input_files("input[name=roster]", str(EXAMPLES / name))
        umpire.click("text=Load the roster")
        umpire.wait_for_selector(f"text=({side}) is loaded from {name}")
    checks.look(umpire, "rosters")

    players = {}
    for side, (username, password) in PLAYERS.items():
        umpire.goto(f"{campaign_url}members/")
        umpire.select_option("#link-role", "player")
        force = umpire.locator("#link-force option", has_text=f"({side})").first
        umpire.select_option("#link-force", force.get_attribute("value"))
        umpire.click("text=Make the link")
        link = umpire.locator("#link-url").input_value()
        checks.look(umpire, f"members-{side}")
        context, page = phone_page(browser, dark=side == "Red")
        page.goto(link)
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", password)
        page.fill("input[name=password_again]", password)
        page.click("main button[type=submit]")
        page.wait_for_selector(f"text=Welcome, {username}: you joined as player.")
        players[side] = (context, page, PhoneChecks(f"night-{side.lower()}"))

    # Plan, commit, start.
    umpire.goto(campaign_url)
    umpire.click("text=Plan a battle")
    umpire.wait_for_url(re.compile(r".*/battles/new/$"))
    checks.look(umpire, "plan")
    umpire.fill("#in-name", "The ford")
    umpire.fill("#in-day", "0")
    for n, side in ((0, "Blue"), (1, "Red")):
        umpire.fill(f"#in-side{n}", side)
        force = umpire.locator(f"#in-forces{n} option", has_text=f"({side})").first
        umpire.select_option(f"#in-forces{n}", force.get_attribute("value"))
    umpire.fill("#in-objectives0", OBJECTIVE)
    umpire.fill("#in-attacker", "Blue")
    umpire.click("text=Plan the battle")
    umpire.wait_for_url(re.compile(r".*/battles/[0-9a-f-]+/$"))
    battle_url = umpire.url
    checks.look(umpire, "battle-planned")
    umpire.click("text=Commit units")
    for side in ("Blue", "Red"):
        umpire.check(f"fieldset:has(legend:text-is('{side}')) label:has-text('Squad 1') input")
    checks.look(umpire, "commit")
    umpire.click("#commit button[type=submit]")
    umpire.wait_for_url(battle_url)
    umpire.click("text=Start the battle")
    umpire.wait_for_selector("text=The battle began: turn 1.")

    # Casualties on Red's first squad, with the table's dice.
    umpire.click("text=Record an action")
    checks.look(umpire, "actions")
    umpire.click("a[href$='/actions/casualties/']")
    red_squad = option_in_group(umpire, "#in-unit_id", "Red", "Squad 1")
    umpire.select_option("#in-unit_id", red_squad)
    umpire.select_option("#in-mode", "allocate")
    umpire.fill("#in-hits", "1")
    umpire.select_option("#in-impact_die", "6")
    enter_table_dice(umpire, FACES)
    checks.look(umpire, "casualties-dice")
    umpire.click("button[value=table]")
    umpire.wait_for_url(re.compile(r".*/battles/[0-9a-f-]+/#log$"))
    told = umpire.inner_text(".messages")
    wounded = re.search(r": (.+?) wounded", told)
    assert wounded, told
    casualty = wounded.group(1)
    checks.look(umpire, "casualties-told")

    # His treatment, rolled by the server.
    umpire.goto(f"{battle_url}actions/medical_treatment/")
    umpire.select_option("#in-unit_id", red_squad)
    umpire.click("button[value=server]")
    umpire.wait_for_url(re.compile(r".*/jobs/[0-9a-f-]+/$"))
    checks.look(umpire, "treatment-job")
    umpire.goto(battle_url)
    assert f"{casualty} of Squad 1 treated" in umpire.inner_text("#log")

    # A mistaken action (fire on the wrong squad), voided: first without a reason, refused.
    umpire.goto(f"{battle_url}actions/casualties/")
    blue_squad = option_in_group(umpire, "#in-unit_id", "Blue", "Squad 1")
    umpire.select_option("#in-unit_id", blue_squad)
    umpire.select_option("#in-mode", "allocate")
    umpire.fill("#in-hits", "2")
    umpire.select_option("#in-impact_die", "6")
    umpire.click("button[value=server]")
    umpire.wait_for_url(re.compile(r".*/jobs/[0-9a-f-]+/$"))
    umpire.goto(battle_url)
    mistaken = umpire.locator("#log li", has_text="took 2 potential hits").last
    sequence = mistaken.locator(".seq").inner_text().lstrip("#")
    lines = umpire.locator("#log li").count()
    umpire.goto(campaign_url)
    umpire.fill("#void input[name=sequence]", sequence)
    umpire.click("#void button[type=submit]")
    umpire.wait_for_selector("#void .field-error[data-field=reason]")
    assert (
        umpire.inner_text("#void .field-error[data-field=reason]") == "Say why the event is voided."
    )
    checks.look(umpire, "void-refused")
    umpire.goto(battle_url)
    assert umpire.locator("#log li").count() == lines
    umpire.goto(campaign_url)
    umpire.fill("#void input[name=sequence]", sequence)
    umpire.fill("#void input[name=reason]", "Recorded on the wrong squad.")
    umpire.click("#void button[type=submit]")
    umpire.goto(battle_url)
    assert f"Voided: an earlier entry (event #{sequence}" in umpire.inner_text("#log")

    # The end.
    umpire.select_option("#end select[name=winner]", "Blue")
    umpire.click("text=Record the end")
    umpire.wait_for_selector("text=Battle reports")
    checks.look(umpire, "battle-ended")

    # Both players report; they disagree on the Red casualty.
    for side, claim in (("Blue", "killed"), ("Red", "wounded")):
        _, page, player_checks = players[side]
        page.goto(battle_url)
        page.click(f"text=File {side}'s report")
        page.wait_for_selector("#report")
        player_checks.look(page, "report-form")
        page.select_option(f"label.report-line:has-text('{casualty}') select", claim)
        if side == "Blue":
            page.select_option(f"label.report-line:has-text('{OBJECTIVE}') select", "met")
            page.fill("textarea[name=notes]", "He went down by the ford and did not get up.")
        page.click("text=File the report")
        page.wait_for_selector(f"text={side}'s report of The ford is filed.")
        player_checks.look(page, "report-filed")

    # The umpire sees the disagreement marked and accepts Blue's version.
    umpire.goto(battle_url)
    umpire.click("text=Reconcile the reports")
    umpire.wait_for_selector("#points")
    checks.look(umpire, "reconcile")
    point = umpire.locator("li.point", has_text=casualty)
    assert "disagreement" in (point.get_attribute("class") or "")
    assert "disagreement" in point.inner_text()
    point.locator("label", has_text="Accept Blue's: killed").click()
    point.locator("button[type=submit]").click()
    umpire.wait_for_selector("text=Decided.")
    assert "decided" in (umpire.locator("li.point", has_text=casualty).get_attribute("class") or "")
    checks.look(umpire, "reconciled")
    umpire.locator("li.point", has_text=casualty).locator("h3 a").click()
    assert "dead" in umpire.inner_text("main")
    checks.look(umpire, "trooper")

    # Red's player reads the decision on his report.
    _, red, red_checks = players["Red"]
    red.goto(f"{battle_url}report/")
    decided = red.inner_text("#filed")
    assert f"{casualty}" in decided
    assert "You said wounded; the umpire accepted: killed stands (your report not upheld)." in (
        decided
    )
    red_checks.look(red, "decision")

    # The after-action.
    umpire.goto(battle_url)
    umpire.click("text=Resolve after the action")
    umpire.wait_for_url(re.compile(r".*/jobs/[0-9a-f-]+/$"))
    checks.look(umpire, "after-action")
    assert "The after-action resolution is complete: the battle is resolved." in (
        umpire.inner_text("main")
    )

    for context, _, player_checks in players.values():
        context.close()
        player_checks.assert_all_well()
    umpire_context.close()
    checks.assert_all_well()
