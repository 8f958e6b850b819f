"""Every page of the served demo at a phone's width (390 px): nothing scrolls sideways, tables
scroll inside their own box, controls are large enough to touch, and every table says what it is
and which cells head which."""

from __future__ import annotations

import pytest

from tests.browser.conftest import log_in

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def demo_pages(server) -> list[str]:
    campaign = server.campaign_id
    forces = server.api("GET", f"/campaigns/{campaign}/forces/")["results"]
    battles = server.api("GET", f"/campaigns/{campaign}/battles/")["results"]
    force = server.api("GET", f"/forces/{forces[0]['id']}/")
    squad = next(u for p in force["units"] for u in p["units"] if u["troopers"])
    return [
        "/campaigns/",
        f"/campaigns/{campaign}/",
        f"/campaigns/{campaign}/branches/",
        *(f"/forces/{f['id']}/" for f in forces),
        f"/units/{squad['id']}/",
        f"/troopers/{squad['troopers'][0]['id']}/",
        *(f"/battles/{b['id']}/" for b in battles),
    ]


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_every_page_fits_a_phone(browser, demo_server, dark):
    context = browser.new_context(
        viewport=PHONE, color_scheme="dark" if dark else "light", is_mobile=True
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, demo_server, "umpire")
    too_wide = {}
    small = {}
    unlabelled = {}
    for path in demo_pages(demo_server):
        page.goto(f"{demo_server.url}{path}")
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            too_wide[path] = width
        tiny = page.evaluate(
            """() => [...document.querySelectorAll('main button, main select, main input')]
                .filter(e => e.type !== 'hidden' && e.offsetParent !== null)
                .filter(e => e.getBoundingClientRect().height < 44)
                .map(e => e.name || e.textContent.trim())"""
        )
        if tiny:
            small[path] = tiny
        untold = page.evaluate(
            """() => [...document.querySelectorAll('main table')]
                .filter(t => !t.caption || !t.caption.textContent.trim()).length
              + document.querySelectorAll('main th:not([scope])').length"""
        )
        if untold:
            unlabelled[path] = untold
    context.close()
    assert too_wide == {}
    assert small == {}
    assert unlabelled == {}
