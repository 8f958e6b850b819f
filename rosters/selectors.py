"""Reading rosters, now or as they stood at any point of the log.

The views answer the same questions with plain row dicts: :class:`CurrentRoster` from the
read-model tables (a fixed number of queries per answer, whatever the force's size),
:class:`TemporalRoster` as of a sequence from the versions of those rows (index lookups, however
long the log) and :class:`FoldedRoster` as of a sequence from a fold of the log, the reference
the temporal one is tested against. The ``*_detail`` functions turn rows into what the API and
the pages show.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Callable, Collection, Iterator
from typing import Any, Protocol

from eventlog import projections, store, versions
from eventlog.command_input import as_of_sequence
from eventlog.errors import CommandError, NotFound, StateConflict
from rosters.models import Force, Trooper, TrooperRecordEntry, Unit, UnitHistoryEntry, Vehicle
from rosters.vocabulary import TrooperStatus, UnitKind
from rules.sg2.scales import Fatigue

Row = dict[str, Any]


class RosterView(Protocol):
    def force(self, force_id: Any) -> Row | None: ...
    def forces(self) -> list[Row]: ...
    def units(self, force_id: Any) -> list[Row]: ...
    def all_units(self) -> list[Row]: ...
    def troopers(self, **equal: Any) -> list[Row]: ...
    def vehicles(self, **equal: Any) -> list[Row]: ...
    def unit(self, unit_id: Any) -> Row | None: ...
    def trooper(self, trooper_id: Any) -> Row | None: ...
    def vehicle(self, vehicle_id: Any) -> Row | None: ...
    def unit_history(
        self, unit_id: Any, *, after: int = 0, limit: int | None = None
    ) -> list[Row]: ...
    def service_record(
        self, trooper_id: Any, *, after: int = 0, limit: int | None = None
    ) -> list[Row]: ...


def lines_as_read(
    read: Callable[..., list[Row]], entity_id: Any, *, after: int = 0, chunk: int = 200
) -> Iterator[Row]:
    """The lines ``read`` (a view's ``unit_history`` or ``service_record``) gives after
    ``after``, read ``chunk`` at a time as they are consumed, so a page of a long history reads
    about a page of it. A chunk that ends inside the lines of one event is cut before them, and
    the next one starts at that event."""
    while True:
        rows = read(entity_id, after=after, limit=chunk)
        if len(rows) < chunk:
            yield from rows
            return
        last = rows[-1]["sequence"]
        whole = [row for row in rows if row["sequence"] != last]
        if not whole:  # one event told more lines than a chunk holds: read it whole
            chunk *= 2
            continue
        yield from whole
        after = whole[-1]["sequence"]


def _rows(queryset) -> list[Row]:
    return [{k: projections.native(v) for k, v in row.items()} for row in queryset.values()]


def _one(queryset) -> Row | None:
    found = _rows(queryset[:1])
    return found[0] if found else None


class CurrentRoster:
    """The roster as it stands now, from the read-model tables."""

    def __init__(self, campaign_id: Any) -> None:
        self.campaign_id = campaign_id

    def force(self, force_id: Any) -> Row | None:
        return _one(Force.objects.filter(campaign_id=self.campaign_id, id=force_id))

    def forces(self) -> list[Row]:
        return _rows(Force.objects.filter(campaign_id=self.campaign_id).order_by("raised_sequence"))

    def units(self, force_id: Any) -> list[Row]:
        return _rows(Unit.objects.filter(force_id=force_id).order_by("order"))

    def all_units(self) -> list[Row]:
        return _rows(Unit.objects.filter(campaign_id=self.campaign_id).order_by("order"))

    def troopers(self, **equal: Any) -> list[Row]:
        return _rows(Trooper.objects.filter(**equal).order_by("order"))

    def vehicles(self, **equal: Any) -> list[Row]:
        return _rows(Vehicle.objects.filter(**equal).order_by("order"))

    def unit(self, unit_id: Any) -> Row | None:
        return _one(Unit.objects.filter(campaign_id=self.campaign_id, id=unit_id))

    def trooper(self, trooper_id: Any) -> Row | None:
        return _one(Trooper.objects.filter(campaign_id=self.campaign_id, id=trooper_id))

    def vehicle(self, vehicle_id: Any) -> Row | None:
        return _one(Vehicle.objects.filter(campaign_id=self.campaign_id, id=vehicle_id))

    def unit_history(self, unit_id: Any, *, after: int = 0, limit: int | None = None) -> list[Row]:
        entries = UnitHistoryEntry.objects.filter(unit_id=unit_id, sequence__gt=after)
        return _rows(entries.order_by("sequence", "key")[:limit])

    def service_record(
        self, trooper_id: Any, *, after: int = 0, limit: int | None = None
    ) -> list[Row]:
        entries = TrooperRecordEntry.objects.filter(trooper_id=trooper_id, sequence__gt=after)
        return _rows(entries.order_by("sequence", "key")[:limit])


class _RosterAsOf:
    """The entity reads of a roster as of a point, over a view's ``_row`` (one row by key) and
    ``_ordered`` (a table's rows, filtered and sorted)."""

    def _row(self, model, pk: Any) -> Row | None:
        raise NotImplementedError

    def _ordered(self, model, key: str, **equal: Any) -> list[Row]:
        raise NotImplementedError

    def force(self, force_id: Any) -> Row | None:
        return self._row(Force, force_id)

    def forces(self) -> list[Row]:
        return self._ordered(Force, "raised_sequence")

    def units(self, force_id: Any) -> list[Row]:
        return self._ordered(Unit, "order", force_id=force_id)

    def all_units(self) -> list[Row]:
        return self._ordered(Unit, "order")

    def troopers(self, **equal: Any) -> list[Row]:
        return self._ordered(Trooper, "order", **equal)

    def vehicles(self, **equal: Any) -> list[Row]:
        return self._ordered(Vehicle, "order", **equal)

    def unit(self, unit_id: Any) -> Row | None:
        return self._row(Unit, unit_id)

    def trooper(self, trooper_id: Any) -> Row | None:
        return self._row(Trooper, trooper_id)

    def vehicle(self, vehicle_id: Any) -> Row | None:
        return self._row(Vehicle, vehicle_id)


class FoldedRoster(_RosterAsOf):
    """The roster as it stood after a given event, folded from the log."""

    def __init__(self, campaign_id: Any, upto: int) -> None:
        self.campaign_id = campaign_id
        self.upto = upto
        # Every projection: battle actions change troopers and vehicles too.
        self.rows = projections.fold_as_of(campaign_id, upto)

    def _ordered(self, model, key: str, **equal: Any) -> list[Row]:
        return sorted(self.rows.find(model, **equal), key=lambda row: row[key])

    def _row(self, model, pk: Any) -> Row | None:
        return self.rows.get(model, pk)

    def unit_history(self, unit_id: Any, *, after: int = 0, limit: int | None = None) -> list[Row]:
        entries = self.rows.find(UnitHistoryEntry, unit_id=unit_id)
        later = [entry for entry in entries if entry["sequence"] > after]
        return sorted(later, key=lambda entry: (entry["sequence"], entry["key"]))[:limit]

    def service_record(
        self, trooper_id: Any, *, after: int = 0, limit: int | None = None
    ) -> list[Row]:
        entries = self.rows.find(TrooperRecordEntry, trooper_id=trooper_id)
        later = [entry for entry in entries if entry["sequence"] > after]
        return sorted(later, key=lambda entry: (entry["sequence"], entry["key"]))[:limit]


class TemporalRoster(_RosterAsOf):
    """The roster as it stood after a given event, from the versions of its rows (ADR 26).

    Forces, units, troopers and vehicles are read from their versions. Unit histories and
    service records only ever gain lines, each at the sequence of the event that wrote it, so
    they are the current lines up to the sequence; unless a later void took back an event at
    or before it: the current lines have forgotten that event, and those reads are folded.
    """

    def __init__(self, campaign_id: Any, upto: int) -> None:
        self.campaign_id = campaign_id
        self.upto = upto
        self._folded: FoldedRoster | None = None
        self._history_current: bool | None = None

    def _row(self, model, pk: Any) -> Row | None:
        return versions.row_as_of(self.campaign_id, model, pk, self.upto)

    def _ordered(self, model, key: str, **equal: Any) -> list[Row]:
        rows = versions.rows_as_of(self.campaign_id, model, self.upto, **equal)
        return sorted(rows, key=lambda row: row[key])

    def _lines_still_stand(self) -> bool:
        """Whether the history lines written up to the sequence are still as they were then:
        no void after it took back an event at or before it."""
        if self._history_current is None:
            self._history_current = versions.lines_stand(self.campaign_id, self.upto)
        return self._history_current

    def _fold(self) -> FoldedRoster:
        if self._folded is None:
            self._folded = FoldedRoster(self.campaign_id, self.upto)
        return self._folded

    def unit_history(self, unit_id: Any, *, after: int = 0, limit: int | None = None) -> list[Row]:
        if not self._lines_still_stand():
            return self._fold().unit_history(unit_id, after=after, limit=limit)
        entries = UnitHistoryEntry.objects.filter(
            unit_id=unit_id, sequence__gt=after, sequence__lte=self.upto
        )
        return _rows(entries.order_by("sequence", "key")[:limit])

    def service_record(
        self, trooper_id: Any, *, after: int = 0, limit: int | None = None
    ) -> list[Row]:
        if not self._lines_still_stand():
            return self._fold().service_record(trooper_id, after=after, limit=limit)
        entries = TrooperRecordEntry.objects.filter(
            trooper_id=trooper_id, sequence__gt=after, sequence__lte=self.upto
        )
        return _rows(entries.order_by("sequence", "key")[:limit])


# --- Where to read from --------------------------------------------------------------------------


def resolve_as_of(
    campaign_id: uuid.UUID,
    *,
    as_of: str | None,
    as_of_battle: str | None,
    side: str | None,
) -> int | None:
    """The sequence an ``?as_of=`` or ``?as_of_battle=&side=`` query means (None: now).

    ``side=before`` is the roster just before the battle began (its start, not its planning:
    linked battles are planned up front, and each must show the losses of those fought before
    it); ``side=after`` is the roster after the battle's last event, its end and after-action
    (for a battle still being fought, its latest event). A battle that has not begun has
    neither: 409 ``battle.not_started``.
    """
    if as_of not in (None, "") and as_of_battle not in (None, ""):
        raise CommandError(
            "as_of.both", "Give as_of or as_of_battle, not both.", field="as_of_battle"
        )
    if side not in (None, "", "before", "after"):
        raise CommandError("invalid.side", "side is 'before' or 'after' the battle.", field="side")
    if as_of not in (None, ""):
        return as_of_sequence(as_of)
    if as_of_battle in (None, ""):
        return None
    try:
        battle_id = uuid.UUID(as_of_battle)
    except ValueError:
        raise CommandError(
            "invalid.as_of_battle", "as_of_battle is a battle id.", field="as_of_battle"
        ) from None
    if side not in ("before", "after"):
        raise CommandError("invalid.side", "side is 'before' or 'after' the battle.", field="side")
    stream = f"battle:{battle_id}"
    bounds = store.stream_bounds(campaign_id, stream)
    if bounds is None:
        raise NotFound("battle.not_found", "No such battle in this campaign.", field="as_of_battle")
    began = _battle_began(campaign_id, stream)
    if began is None:
        raise StateConflict(
            "battle.not_started",
            "That battle has not begun: there is no roster before or after it yet.",
            field="as_of_battle",
        )
    return began - 1 if side == "before" else bounds[1]


# A battle's planning: linked battles are planned (and may be committed to) long before they
# are fought, so these do not begin it.
BATTLE_PLANNING = ("battles.BattlePlanned", "battles.UnitsCommitted")


def _battle_began(campaign_id: uuid.UUID, stream: str) -> int | None:
    """The sequence of the event that began a battle: the first of its stream, not voided, that
    is not its planning. For a battle played through the service that is its
    ``battles.BattleStarted`` (nothing else happens on a battle before it starts); a battle
    recorded by hand begins with its first recorded event. None: not begun."""
    voided = projections.voids(campaign_id)
    for event in store.read(campaign_id, stream=stream):
        if event.type not in BATTLE_PLANNING and event.sequence not in voided:
            return event.sequence
    return None


def roster_view(campaign_id: uuid.UUID, upto: int | None) -> CurrentRoster | TemporalRoster:
    return CurrentRoster(campaign_id) if upto is None else TemporalRoster(campaign_id, upto)


def campaign_of(kind: str, entity_id: uuid.UUID) -> uuid.UUID:
    """The campaign an entity belongs to; unknown ids are simply not found."""
    campaign_id = store.campaign_of_stream(f"{kind}:{entity_id}")
    if campaign_id is None and kind == "trooper":
        # A Fast and Dirty replacement joined by a version-1 after-action event has no stream
        # of his own: his row names the campaign.
        campaign_id = (
            Trooper.objects.filter(pk=entity_id).values_list("campaign_id", flat=True).first()
        )
    if campaign_id is None:
        raise NotFound(f"{kind}.not_found", f"No such {kind}.")
    return campaign_id


# --- What the API shows --------------------------------------------------------------------------


def starting_confidence(unit: Row) -> str | None:
    """The confidence the unit would start a battle at, set by its fatigue (SG2 P.19)."""
    if not unit.get("fatigue"):
        return None
    return Fatigue[unit["fatigue"].upper()].starting_confidence.name.lower()


def _present(troopers: list[Row]) -> int:
    return sum(1 for t in troopers if TrooperStatus(t["status"]).is_present)


def unit_summary(unit: Row, troopers: list[Row]) -> Row:
    """A unit with what its rows add up to: strength, starting confidence, whether it is a
    formation (``troopers`` are its own)."""
    return {
        **unit,
        "strength": _present(troopers),
        "starting_confidence": starting_confidence(unit),
        "is_formation": UnitKind(unit["kind"]).is_formation,
    }


def unit_with_members(unit: Row, troopers: list[Row], vehicles: list[Row]) -> Row:
    return {**unit_summary(unit, troopers), "troopers": troopers, "vehicles": vehicles}


def force_detail(view: RosterView, force: Row) -> Row:
    """A force with its units as a tree, each with its troopers and vehicles."""
    units = view.units(force["id"])
    troopers = view.troopers(force_id=force["id"])
    vehicles = view.vehicles(force_id=force["id"])
    by_unit_t: dict[str, list[Row]] = defaultdict(list)
    for trooper in troopers:
        by_unit_t[trooper["unit_id"]].append(trooper)
    by_unit_v: dict[str, list[Row]] = defaultdict(list)
    for vehicle in vehicles:
        by_unit_v[vehicle["unit_id"]].append(vehicle)
    nodes = {
        u["id"]: {**unit_with_members(u, by_unit_t[u["id"]], by_unit_v[u["id"]]), "units": []}
        for u in units
    }
    roots: list[Row] = []
    for unit in units:
        node = nodes[unit["id"]]
        parent = nodes.get(unit["parent_id"]) if unit["parent_id"] else None
        (parent["units"] if parent else roots).append(node)
    return {
        **force,
        "unit_count": sum(1 for u in units if not UnitKind(u["kind"]).is_formation),
        "trooper_count": _present(troopers),
        "units": roots,
    }


def in_organisation_order(units: list[Row]) -> list[Row]:
    """A force's units (ordered among their siblings) as its organisation reads top down: each
    formation followed by the units under it."""
    known = {unit["id"] for unit in units}
    children: dict[Any, list[Row]] = defaultdict(list)
    for unit in units:
        children[unit["parent_id"] if unit["parent_id"] in known else None].append(unit)
    ordered: list[Row] = []
    stack = list(reversed(children[None]))
    while stack:
        unit = stack.pop()
        ordered.append(unit)
        stack.extend(reversed(children[unit["id"]]))
    return ordered


def force_units(view: RosterView, force: Row, statuses: Collection[str] = ()) -> list[Row]:
    """A force's units in the order of its organisation, each with its strength; only those
    whose status is one of ``statuses``, if any are given."""
    troopers: dict[str, list[Row]] = defaultdict(list)
    for trooper in view.troopers(force_id=force["id"]):
        troopers[trooper["unit_id"]].append(trooper)
    return [
        unit_summary(unit, troopers[unit["id"]])
        for unit in in_organisation_order(view.units(force["id"]))
        if not statuses or unit["status"] in statuses
    ]


def force_troopers(view: RosterView, force: Row, statuses: Collection[str] = ()) -> list[Row]:
    """A force's troopers unit by unit, in the order of its organisation; only those whose
    status is one of ``statuses``, if any are given."""
    units = in_organisation_order(view.units(force["id"]))
    rank = {unit["id"]: place for place, unit in enumerate(units)}
    chosen = [
        trooper
        for trooper in view.troopers(force_id=force["id"])
        if not statuses or trooper["status"] in statuses
    ]
    # Ranked by their unit's place; one whose unit is not among the force's comes last.
    return sorted(chosen, key=lambda t: (rank.get(t["unit_id"], len(rank)), t["order"]))


def force_outlines(view: RosterView) -> list[Row]:
    """What anyone in the campaign may see of its forces: name, side and size."""
    sizes: dict[str, int] = defaultdict(int)
    for unit in view.all_units():
        if not UnitKind(unit["kind"]).is_formation:
            sizes[unit["force_id"]] += 1
    return [
        {
            "id": force["id"],
            "name": force["name"],
            "side": force["side"],
            "unit_count": sizes[force["id"]],
        }
        for force in view.forces()
    ]


def unit_detail(view: RosterView, unit: Row) -> Row:
    troopers = view.troopers(unit_id=unit["id"])
    vehicles = view.vehicles(unit_id=unit["id"])
    return unit_with_members(unit, troopers, vehicles)


def trooper_detail(view: RosterView, trooper: Row) -> Row:
    unit = view.unit(trooper["unit_id"])
    return {
        **trooper,
        "unit_name": unit["name"] if unit else None,
        "service_record": view.service_record(trooper["id"]),
    }
