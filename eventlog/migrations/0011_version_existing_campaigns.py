"""Campaigns logged before row versions existed get them: their read models are folded again
from the log, which writes every version (ADR 26). Without this their rosters as of a point would
read empty until someone ran ``rebuild_projections``. A fresh database has no campaign: nothing
to do."""

from django.db import migrations


def version_existing_campaigns(apps, schema_editor):
    # The projections as they stand in the code: the migration runs after the last migration of
    # every app with read models (its dependencies), so the code's tables are the database's.
    from eventlog import projections

    for campaign_id in projections.campaign_ids():
        projections.rebuild(campaign_id)


class Migration(migrations.Migration):
    dependencies = [
        ("eventlog", "0010_row_versions"),
        ("battles", "0005_battle_report"),
        ("campaigns", "0008_invitation_links"),
        ("rosters", "0007_trooper_suit_wrecked"),
    ]

    operations = [
        migrations.RunPython(version_existing_campaigns, migrations.RunPython.noop, elidable=True)
    ]
