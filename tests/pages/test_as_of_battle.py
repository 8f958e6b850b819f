"""The pages' "as it stood before / after battle N" selector on linked battles planned up front:
it reads ``resolve_as_of`` as the API does, so battle 1's losses show before battle 2 (SG2 P.60:
units carry their losses from one battle of a campaign into the next)."""

from __future__ import annotations

import pytest

from tests.pages.test_rosters import strength
from tests.rosters.test_as_of_battle import _casualties, _fight
from tests.rosters.test_as_of_battle import linked as linked  # the fixture

pytestmark = pytest.mark.django_db


def test_the_page_before_battle_2_shows_battle_1s_losses(client, umpire, umpire_api, linked):
    _campaign, _forces, units, troopers, (first, second, third) = linked
    url = _fight(umpire_api, first, units)
    _casualties(umpire_api, url, "killed", troopers["Pte Dog"], troopers["Pte Baker"])
    assert umpire_api.post(f"{url}end/", {"winner": "Blue"}).status_code == 200
    url = _fight(umpire_api, second, units)
    _casualties(umpire_api, url, "killed", troopers["Sgt Able"])
    alpha = next(u for u in units if u.name == "Alpha Squad")
    client.force_login(umpire)

    page = client.get(f"/units/{alpha.id}/", {"as_of_battle": f"{second}:before"})
    assert page.status_code == 200
    text = page.content.decode()
    assert strength(text) == 2
    assert "before Hold the ford (after event #" in text
    assert strength(client.get(f"/units/{alpha.id}/", {"as_of_battle": f"{first}:before"})
                    .content.decode()) == 4  # fmt: skip
    assert strength(client.get(f"/units/{alpha.id}/").content.decode()) == 1
    # The select offers the two battles begun, not the one only planned.
    for battle in (first, second):
        assert f'value="{battle}:before"' in text
        assert f'value="{battle}:after"' in text
    assert f'value="{third}:' not in text
    # Asked for it anyway, the page says why and shows now.
    asked = client.get(f"/units/{alpha.id}/", {"as_of_battle": f"{third}:before"})
    assert asked.status_code == 400
    assert "That battle has not begun" in asked.content.decode()
    assert strength(asked.content.decode()) == 1
