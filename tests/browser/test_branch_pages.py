"""An umpire asks "what if?" of the served demo campaign in headless Chromium, at a phone's width:
a refused branch shows the rule's message beside its field and makes nothing; a branch is made,
played through and compared unit by unit; then deleted, leaving the campaign as it was."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import log_in

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def fits_the_phone(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], (page.url, width)


@pytest.fixture
def phone(browser, page):
    page.set_viewport_size(PHONE)
    return page


def test_the_umpire_branches_the_demo_compares_it_and_deletes_it(phone, demo_server):
    server = demo_server
    page = phone
    log_in(page, server, "umpire")
    events_before = server.api("GET", f"/campaigns/{server.campaign_id}/events/?limit=1")
    page.goto(f"{server.url}/campaigns/{server.campaign_id}/")
    page.click("text=What if?")
    page.wait_for_url(re.compile(r".*/branches/$"))
    fits_the_phone(page)
    page.screenshot_as("branches")

    # A D7 is no die: the rule's message comes back beside the options, and nothing is made.
    page.select_option("select[name=point]", index=0)
    page.select_option("select[name=option_0]", "replacement_die")
    page.fill("input[name=value_0]", "7")
    page.click("#new-branch button[type=submit]")
    page.wait_for_url(re.compile(r".*/branches/#new-branch$"))
    error = page.locator("#options .field-error")
    assert "replacement_die" in error.inner_text()
    fits_the_phone(page)
    page.screenshot_as("refused")
    assert server.api("GET", f"/campaigns/{server.campaign_id}/branches/")["count"] == 0

    page.select_option("select[name=point]", index=0)
    page.select_option("select[name=option_0]", "replacement_die")
    page.fill("input[name=value_0]", "10")
    page.fill("input[name=name]", "Long Night with a D10")
    page.click("#new-branch button[type=submit]")
    page.wait_for_url(re.compile(r".*/branches/[0-9a-f-]{36}/$"))
    page.wait_for_selector("#comparison")
    progress = page.inner_text("#progress")
    assert "Succeeded" in progress
    done = re.search(r"(\d+) of (\d+) commands", progress)
    assert done is not None
    assert done.group(1) == done.group(2)
    assert "Recon Squad 1" in page.inner_text("#comparison")
    assert page.locator("#comparison table.compare").count() >= 6
    fits_the_phone(page)
    page.screenshot_as("comparison")
    page.select_option("select[name=as_of_battle]", label="after Recon in force")
    page.click("#comparison form button[type=submit]")
    page.wait_for_selector("text=Side by side after Recon in force")
    fits_the_phone(page)

    page.click("text=the branch's own pages")
    page.wait_for_selector(".branch-of")
    page.screenshot_as("the-branch")
    page.go_back()

    page.click("text=Delete this branch")
    page.wait_for_url(re.compile(r".*/branches/$"))
    assert "No branches yet." in page.inner_text("#branches")
    assert server.api("GET", f"/campaigns/{server.campaign_id}/events/?limit=1") == events_before
