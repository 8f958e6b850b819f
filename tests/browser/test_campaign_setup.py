"""Setting a campaign up from nothing on a phone (390 x 844), in headless Chromium: the first
account made as the README says (``createumpire``), the umpire creates a campaign, loads both
sides' rosters and invites a player, who makes an account with the link in a browser of their own
and joins. Every page visited fits the phone's width, its controls are large enough to touch and
labelled, and it has a skip link."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass

import pytest

from tests.browser.conftest import ROOT, SCREENSHOTS, free_port, serving

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
EXAMPLES = ROOT / "examples"
UMPIRE, UMPIRE_PASSWORD = "ursula", "a quiet field of poppies"
PLAYER, PLAYER_PASSWORD = "sam", "three tired horses graze"


@dataclass
class Server:
    url: str


@pytest.fixture(scope="module")
def fresh_server(tmp_path_factory):
    """An installation with nothing in it but the first account, made with ``createumpire``."""
    var = tmp_path_factory.mktemp("fresh-server")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update(MUSTER_VAR_DIR=str(var), DJANGO_SETTINGS_MODULE="config.settings.dev")
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=env, check=True)
    subprocess.run(
        [*manage, "createumpire", UMPIRE, "--password-stdin"],
        input=f"{UMPIRE_PASSWORD}\n",
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with serving(env, port, var / "server.log"):
        yield Server(url=url)


class PhoneChecks:
    """What every page visited must be at a phone's width, kept per page for one assertion."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.shots = iter(range(1, 100))
        self.too_wide: dict[str, int] = {}
        self.small: dict[str, list[str]] = {}
        self.unlabelled: dict[str, list[str]] = {}
        self.no_skip_link: list[str] = []

    def look(self, page, what: str) -> None:
        path = page.url.split("//", 1)[1].partition("/")[2]
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shot = SCREENSHOTS / f"campaign-setup-{self.name}-{next(self.shots):02d}-{what}.png"
        page.screenshot(path=str(shot), full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            self.too_wide[f"{what} /{path}"] = width
        tiny = page.evaluate(
            """() => [...document.querySelectorAll(
                    'main button, main select, main input, main summary')]
                .filter(e => e.type !== 'hidden' && e.offsetParent !== null)
                .map(e => e.type === 'checkbox' || e.type === 'radio' ? e.closest('label') || e : e)
                .filter(e => e.getBoundingClientRect().height < 44)
                .map(e => e.name || e.textContent.trim())"""
        )
        if tiny:
            self.small[what] = tiny
        untold = page.evaluate(
            """() => [...document.querySelectorAll('main select, main input, main textarea')]
                .filter(e => e.type !== 'hidden' && e.type !== 'submit')
                .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label'))
                .map(e => e.name)"""
        )
        if untold:
            self.unlabelled[what] = untold
        skip_link = "() => !!document.querySelector('a.skip[href=\"#main\"]')"
        if not page.evaluate(skip_link) or not page.evaluate(
            "() => !!document.getElementById('main')"
        ):
            self.no_skip_link.append(what)

    def assert_all_well(self) -> None:
        assert self.too_wide == {}
        assert self.small == {}
        assert self.unlabelled == {}
        assert self.no_skip_link == []


def phone_page(browser, dark: bool):
    context = browser.new_context(
        viewport=PHONE, color_scheme="dark" if dark else "light", is_mobile=True
    )
    page = context.new_page()
    page.set_default_timeout(20_000)
    return context, page


def test_an_umpire_sets_a_campaign_up_and_a_player_joins_with_a_link(
    browser, fresh_server, tmp_path
):
    url = fresh_server.url
    umpire_context, umpire = phone_page(browser, dark=True)
    umpire_checks = PhoneChecks("umpire")

    umpire.goto(f"{url}/login/")
    umpire_checks.look(umpire, "login")
    umpire.fill("input[name=username]", UMPIRE)
    umpire.fill("input[name=password]", UMPIRE_PASSWORD)
    umpire.click("main button[type=submit]")
    umpire.wait_for_url(re.compile(r".*/campaigns/$"))
    umpire_checks.look(umpire, "campaigns")

    umpire.click("text=Create a campaign")
    umpire.wait_for_url(re.compile(r".*/campaigns/new/$"))
    umpire_checks.look(umpire, "new-campaign")
    # Every option, opened, still fits.
    umpire.click("details.options > summary")
    assert umpire.locator("select[name='options.replacement_die']").input_value() == "8"
    umpire_checks.look(umpire, "new-campaign-options")
    umpire.fill("input[name=name]", "Kessler Ridge")
    umpire.select_option("select[name='options.replacement_die']", "10")
    umpire.click("text=Create the campaign")
    umpire.wait_for_url(re.compile(r".*/rosters/$"))
    assert "Kessler Ridge is created and you are its umpire" in umpire.inner_text("main")
    umpire_checks.look(umpire, "rosters-empty")

    for side, name in (("Blue", "sg2-scenario-1-blue.yaml"), ("Red", "sg2-scenario-1-red.yaml")):
        umpire.set_input_files("input[name=roster]", str(EXAMPLES / name))
        umpire.click("text=Load the roster")
        umpire.wait_for_selector(f"text=({side}) is loaded from {name}")
        umpire_checks.look(umpire, f"rosters-{side.lower()}")
    assert umpire.locator("ul.cards li").count() == 2

    # A roster with a problem is refused with its line, beside the file input.
    broken = tmp_path / "broken-roster.yaml"
    red = (EXAMPLES / "sg2-scenario-1-red.yaml").read_text()
    broken.write_text(red.replace("side:", "sides:", 1))
    umpire.set_input_files("input[name=roster]", str(broken))
    umpire.click("text=Load the roster")
    umpire.wait_for_selector("ol.problems")
    assert re.search(r"Line \d+", umpire.inner_text("ol.problems"))
    umpire_checks.look(umpire, "rosters-refused")
    assert umpire.locator("ul.cards li").count() == 2

    umpire.click("text=Members and invitations")
    umpire.wait_for_url(re.compile(r".*/members/$"))
    umpire_checks.look(umpire, "members")
    umpire.select_option("#link-role", "player")
    blue = umpire.locator("#link-force option", has_text="(Blue)").first.get_attribute("value")
    umpire.select_option("#link-force", blue)
    umpire.click("text=Make the link")
    link = umpire.locator("#link-url").input_value()
    assert "/join/" in link
    umpire_checks.look(umpire, "members-link")

    player_context, player = phone_page(browser, dark=False)
    player_checks = PhoneChecks("player")
    player.goto(link)
    assert "join as a player commanding" in player.inner_text("main")
    player_checks.look(player, "join")
    player.fill("input[name=username]", PLAYER)
    player.fill("input[name=password]", PLAYER_PASSWORD)
    player.fill("input[name=password_again]", PLAYER_PASSWORD + " typo")
    player.click("main button[type=submit]")
    player.wait_for_selector("text=The two passwords differ.")
    player_checks.look(player, "join-refused")
    player.fill("input[name=password]", PLAYER_PASSWORD)
    player.fill("input[name=password_again]", PLAYER_PASSWORD)
    player.click("main button[type=submit]")
    player.wait_for_selector("text=Welcome, sam: you joined as player.")
    player_checks.look(player, "dashboard")
    player.goto(f"{url}/campaigns/")
    assert "you are player" in player.inner_text("main")
    player_checks.look(player, "campaigns")

    # The link worked once.
    again = player_context.new_page()
    response = again.goto(link)
    assert response is not None
    assert response.status == 410

    umpire.reload()
    assert "Accepted by sam" in umpire.inner_text("main")
    umpire.click("main a:text-is('Options')")
    umpire.wait_for_url(re.compile(r".*/options/$"))
    assert umpire.locator("select[name='options.replacement_die']").input_value() == "10"
    umpire_checks.look(umpire, "options")
    umpire.goto(umpire.url.replace("/options/", "/"))
    umpire_checks.look(umpire, "dashboard")

    player_context.close()
    umpire_context.close()
    umpire_checks.assert_all_well()
    player_checks.assert_all_well()
