"""The demo campaign on PostgreSQL: as-of views around each battle equal a fold from scratch."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from battles.models import Battle
from campaigns.models import Campaign
from eventlog import projections, store
from rosters import selectors
from rosters.models import Force

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def fold_from_scratch(campaign_id, upto):
    """The read models folded from the first event, with no snapshot."""
    voided = projections.voids(campaign_id, upto)
    return projections.fold_events(store.read(campaign_id, upto=upto), voided=voided)


def test_as_of_each_demo_battle_equals_a_rebuild_folded_to_that_point(api_for, settings):
    settings.MUSTER_SNAPSHOT_INTERVAL = 50  # make the as-of path use cached snapshots
    call_command("demo", stdout=io.StringIO())
    campaign = Campaign.objects.get()
    umpire = api_for(_umpire(campaign))
    for battle in Battle.objects.filter(campaign_id=campaign.id).order_by("day"):
        for side in ("before", "after"):
            upto = selectors.resolve_as_of(
                campaign.id, as_of=None, as_of_battle=str(battle.id), side=side
            )
            assert upto is not None
            rows = fold_from_scratch(campaign.id, upto)
            view = selectors.FoldedRoster.__new__(selectors.FoldedRoster)
            view.campaign_id, view.upto, view.rows = campaign.id, upto, rows
            for force in Force.objects.filter(campaign_id=campaign.id):
                served = umpire.get(
                    f"/api/v1/forces/{force.id}/",
                    {"as_of_battle": str(battle.id), "side": side},
                ).json()
                folded = view.force(force.id)
                assert folded is not None
                assert served == selectors.force_detail(view, folded), (battle.name, side)


def _umpire(campaign):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(pk=campaign.umpire_id)
