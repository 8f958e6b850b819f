"""Rows in the order the roster lists them, never in the order of their ids.

Ids are random: ordering by them would give the same campaign's events in another order in a copy
of it with other ids (a branch, campaigns/branches.py), and means nothing to a reader. Forces come
in the order they were raised, units in their place in their force.
"""

from __future__ import annotations

from typing import TypeVar

from django.db.models import Model, OuterRef, QuerySet, Subquery

from rosters.models import Force, Unit

M = TypeVar("M", bound=Model)


def ranked(queryset: QuerySet[M]) -> QuerySet[M]:
    """The rows with ``force_rank`` (when their force was raised) and, for rows of a unit,
    ``unit_rank`` (the unit's place in its force), to order them by (``F("force_rank")``)."""
    force_rank = Force.objects.filter(id=OuterRef("force_id")).values("raised_sequence")[:1]
    ranks = {"force_rank": Subquery(force_rank)}
    if queryset.model is not Unit:
        unit_rank = Unit.objects.filter(id=OuterRef("unit_id")).values("order")[:1]
        ranks["unit_rank"] = Subquery(unit_rank)
    return queryset.annotate(**ranks)
