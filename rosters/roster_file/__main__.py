"""Print the roster file's JSON Schema, the content of ``docs/roster-format.schema.json``:
``python -m rosters.roster_file > docs/roster-format.schema.json``."""

from __future__ import annotations

import json

from rosters.roster_file.spec import roster_json_schema

print(json.dumps(roster_json_schema(), indent=2, ensure_ascii=False))
