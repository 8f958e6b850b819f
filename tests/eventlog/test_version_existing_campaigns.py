"""A campaign logged before row versions existed gets them from the data migration that folds it
again (eventlog.0011): its roster as of a point reads as it did, instead of empty."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps as django_apps
from django.core.cache import caches

from eventlog.models import RowVersion
from eventlog.projections import dump_rows
from rosters.models import Force
from tests.battles.helpers import scenario_campaign

pytestmark = pytest.mark.django_db

migration = importlib.import_module("eventlog.migrations.0011_version_existing_campaigns")


def test_the_migration_writes_the_versions_a_campaign_logged_before_them_lacks(umpire, umpire_api):
    campaign = scenario_campaign(umpire, umpire_api)
    force = Force.objects.filter(campaign_id=campaign.id).first()
    assert force is not None
    before = dump_rows(campaign.id)
    as_of = umpire_api.get(f"/api/v1/forces/{force.id}/?as_of=3").json()
    # As an installation upgraded to row versions finds it: rows, and no versions; and, as
    # the upgrade starts new processes, no read kept from before (ADR 27).
    RowVersion.objects.filter(campaign_id=campaign.id).delete()
    caches["reads"].clear()
    assert umpire_api.get(f"/api/v1/forces/{force.id}/?as_of=3").json() != as_of

    migration.version_existing_campaigns(django_apps, None)

    assert dump_rows(campaign.id) == before
    assert umpire_api.get(f"/api/v1/forces/{force.id}/?as_of=3").json() == as_of
