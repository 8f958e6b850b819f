"""Let the events and command records of an erased campaign (a deleted branch) be deleted, and
no others.

Both tables stay append-only: UPDATE is refused for every row, and DELETE for every row whose
campaign is not listed in ``eventlog_erasedcampaign``. Only the deletion of a branch lists a
campaign there (``campaigns.branches.branch_delete``).
"""

from django.db import migrations

POSTGRES_FORWARD = """
CREATE OR REPLACE FUNCTION eventlog_refuse_change() RETURNS trigger AS $$
BEGIN
    -- Shared by eventlog_event and eventlog_commandrecord: both have campaign_id.
    IF TG_OP = 'DELETE' AND EXISTS (
        SELECT 1 FROM eventlog_erasedcampaign WHERE campaign_id = OLD.campaign_id
    ) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
"""

POSTGRES_BACKWARD = """
CREATE OR REPLACE FUNCTION eventlog_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'eventlog_event is append-only: % refused', TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
"""

TABLES = ("eventlog_event", "eventlog_commandrecord")

SQLITE_FORWARD = [
    statement
    for table in TABLES
    for statement in (
        f"DROP TRIGGER IF EXISTS {table}_no_delete;",
        f"""
        CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table}
        WHEN NOT EXISTS (
            SELECT 1 FROM eventlog_erasedcampaign WHERE campaign_id = OLD.campaign_id
        )
        BEGIN SELECT RAISE(ABORT, '{table} is append-only: DELETE refused'); END;
        """,
    )
]

SQLITE_BACKWARD = [
    statement
    for table in TABLES
    for statement in (
        f"DROP TRIGGER IF EXISTS {table}_no_delete;",
        f"""
        CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table}
        BEGIN SELECT RAISE(ABORT, '{table} is append-only: DELETE refused'); END;
        """,
    )
]


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRES_FORWARD, params=None)
    else:
        for statement in SQLITE_FORWARD:
            schema_editor.execute(statement)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRES_BACKWARD, params=None)
    else:
        for statement in SQLITE_BACKWARD:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0008_job_progress_and_erased_campaigns")]

    operations = [migrations.RunPython(forward, backward)]
