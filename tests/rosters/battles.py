"""A battle fought through HTTP for the roster tests: planned on the campaign's day, the named
Blue units against the Red squad, ended and, if asked, resolved after the action."""

from __future__ import annotations

from campaigns.models import Campaign
from rosters.models import Force, Unit


def fight(api, campaign, *names: str, winner: str = "Blue", resolve: bool = True) -> str:
    """A battle of the Blue units ``names`` against the Red squad on the campaign's day, ended
    with ``winner`` and, if ``resolve``, resolved after the action (no dice are due: nobody is
    hurt and no unit is fatigued). Returns the battle's URL."""
    day = Campaign.objects.get(pk=campaign.id).day
    blue, red = (Force.objects.get(campaign_id=campaign.id, side=s) for s in ("Blue", "Red"))
    plan = api.post(
        f"/api/v1/campaigns/{campaign.id}/battles/",
        {
            "name": f"Skirmish on day {day} ({', '.join(names)})",
            "day": day,
            "sides": [
                {"side": "Blue", "force_ids": [str(blue.id)]},
                {"side": "Red", "force_ids": [str(red.id)]},
            ],
        },
    )
    assert plan.status_code == 201, plan.json()
    url = f"/api/v1/battles/{plan.json()['id']}/"
    units = [str(Unit.objects.get(name=n).id) for n in (*names, "Red Squad")]
    committed = api.post(f"{url}commit/", {"unit_ids": units})
    assert committed.status_code == 200, committed.json()
    assert api.post(f"{url}start/").status_code == 200
    ended = api.post(f"{url}end/", {"winner": winner})
    assert ended.status_code == 200, ended.json()
    if resolve:
        resolved = api.post(f"{url}after-action/", {"dice": []})
        assert resolved.status_code == 201, resolved.json()
    return url
