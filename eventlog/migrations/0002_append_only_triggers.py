"""Make the event table append-only in the database itself.

The triggers refuse every UPDATE and DELETE on ``eventlog_event``, whoever issues it: the ORM, a
raw SQL statement or a console session. Corrections are new events. TRUNCATE stays possible for
the table owner (it is how a test database is reset); production deployments should run the
application under a role without the TRUNCATE privilege (see docs/adr/0001-event-store.md).
"""

from django.db import migrations

POSTGRES_FORWARD = """
CREATE OR REPLACE FUNCTION eventlog_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'eventlog_event is append-only: % refused', TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER eventlog_event_append_only
    BEFORE UPDATE OR DELETE ON eventlog_event
    FOR EACH ROW EXECUTE FUNCTION eventlog_refuse_change();
"""

POSTGRES_BACKWARD = """
DROP TRIGGER IF EXISTS eventlog_event_append_only ON eventlog_event;
DROP FUNCTION IF EXISTS eventlog_refuse_change();
"""

SQLITE_FORWARD = [
    """
    CREATE TRIGGER eventlog_event_no_update BEFORE UPDATE ON eventlog_event
    BEGIN SELECT RAISE(ABORT, 'eventlog_event is append-only: UPDATE refused'); END;
    """,
    """
    CREATE TRIGGER eventlog_event_no_delete BEFORE DELETE ON eventlog_event
    BEGIN SELECT RAISE(ABORT, 'eventlog_event is append-only: DELETE refused'); END;
    """,
]

SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS eventlog_event_no_update;",
    "DROP TRIGGER IF EXISTS eventlog_event_no_delete;",
]


def forward(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor == "postgresql":
        schema_editor.execute(POSTGRES_FORWARD, params=None)
    elif connection.vendor == "sqlite":
        for statement in SQLITE_FORWARD:
            schema_editor.execute(statement)
    else:
        raise NotImplementedError(f"No append-only triggers for {connection.vendor}.")


def backward(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor == "postgresql":
        schema_editor.execute(POSTGRES_BACKWARD, params=None)
    else:
        for statement in SQLITE_BACKWARD:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0001_initial")]

    operations = [migrations.RunPython(forward, backward)]
