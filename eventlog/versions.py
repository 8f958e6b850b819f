"""Reading temporal read models *as of* a point of the log, from their row versions (ADR 26).

A version holds from ``valid_from`` up to, not including, ``valid_to`` (NULL: still holds), so
the row with key K as of N is the last version of K that began at or before N, if it had not
ended by N; and the rows of a table live at N are those whose range contains N. Both are index
lookups, whatever the length of the log.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, models
from django.db.models.expressions import RawSQL

from eventlog import store
from eventlog.events import VOIDED
from eventlog.models import RowVersion
from eventlog.projections import Row, native


def _label(model: type[models.Model]) -> str:
    return model._meta.label_lower


def row_as_of(
    campaign_id: uuid.UUID, model: type[models.Model], pk: Any, sequence: int
) -> Row | None:
    """The row of ``model`` with primary key ``pk`` as it stood after event ``sequence``."""
    try:
        key = str(native(model._meta.pk.to_python(pk)))
    except ValidationError:
        return None
    found = (
        RowVersion.objects.filter(
            campaign_id=campaign_id, table=_label(model), row_key=key, valid_from__lte=sequence
        )
        .order_by("-valid_from")
        .values_list("valid_to", "data")
        .first()
    )
    if found is None:
        return None
    valid_to, data = found
    return data if valid_to is None or valid_to > sequence else None


def rows_as_of(
    campaign_id: uuid.UUID, model: type[models.Model], sequence: int, **equal: Any
) -> list[Row]:
    """The rows of ``model`` live after event ``sequence`` whose fields equal ``equal``,
    ordered by primary key as a fold's rows are."""
    table = RowVersion.objects.filter(campaign_id=campaign_id, table=_label(model))
    if connection.vendor == "postgresql":
        # The expression of the GiST index (migration 0010), so the index answers it.
        live = [
            table.filter(
                RawSQL(
                    "int8range(valid_from, valid_to) @> %s::bigint",
                    [sequence],
                    output_field=models.BooleanField(),
                )
            )
        ]
    else:
        # Two ranges of the (campaign, table, valid_to) index: SQLite reads an OR of them
        # as a scan of the table's every version.
        began = table.filter(valid_from__lte=sequence)
        live = [began.filter(valid_to__isnull=True), began.filter(valid_to__gt=sequence)]
    rows: list[tuple[str, Row]] = []
    for versions in live:
        for name, value in equal.items():
            versions = versions.filter(**{f"data__{name}": native(value)})
        rows.extend(versions.values_list("row_key", "data"))
    rows.sort(key=lambda found: _key_order(found[0]))
    return [data for _, data in rows]


def _key_order(key: str) -> tuple[int, Any]:
    # As eventlog.projections orders memory rows: numbers by value, other keys as text.
    return (0, int(key)) if key.isdigit() else (1, key)


def lines_stand(campaign_id: uuid.UUID, sequence: int) -> bool:
    """Whether the lines of append-only tables (histories, journal notes, service records)
    written up to event ``sequence`` are still as they were then.

    Such a line is written once, at the sequence of the event it tells, so as of N those tables
    are their current lines up to N, unless a void after N took back an event at or before N:
    the current lines have forgotten what that event wrote, and only a fold as of N knows it.
    A void after N of a later event changes nothing up to N. One index range of the voids.
    """
    later = store.read(campaign_id, after=sequence, types=[VOIDED])
    return all(void.payload["sequence"] > sequence for void in later)
