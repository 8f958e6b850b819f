"""Empty the table of DRF's old tokens, if this database has one.

Those tokens were kept in clear and never expired; nothing reads them since the API moved to
hashed tokens (accounts.ApiToken), so their secrets are deleted rather than left lying about.
Users log in again for a new token; umpires issue new tokens to their API clients.
"""

from django.db import migrations

OLD_TABLE = "authtoken_token"


def forget(apps, schema_editor):
    connection = schema_editor.connection
    if OLD_TABLE in connection.introspection.table_names():
        schema_editor.execute(f"DELETE FROM {connection.ops.quote_name(OLD_TABLE)}")


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_api_tokens")]

    operations = [migrations.RunPython(forget, migrations.RunPython.noop)]
