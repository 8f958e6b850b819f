"""Rosters over HTTP: forces, units, troopers and vehicles, now or as of any point, their
histories and lists, and the umpire's adjustments."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.urls import reverse
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiTypes,
    extend_schema,
    extend_schema_view,
)
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.models import Campaign
from campaigns.selectors import require_umpire
from campaigns.visibility import (
    UNKNOWN_FORCE,
    Judge,
    Reader,
    reader_get,
    require_entity_whole,
    require_force_whole,
)
from eventlog.api.commands import execute
from eventlog.api.pagination import (
    OFFSET_PAGE_PARAMETERS,
    PAGE_DEFAULT,
    PAGE_MAX,
    SEQUENCE_PAGE_PARAMETERS,
    event_lines_page,
    int_param,
    offset_page,
    offset_page_of,
    sequence_page_of,
)
from eventlog.api.read_cache import campaign_read, kept_by_log_position
from eventlog.api.serializers import EventOutputSerializer, event_to_json
from eventlog.caching import pin_answer
from eventlog.commands import Outcome
from eventlog.errors import CommandError, NotFound
from rosters import adjustments, moves, regroup, selectors
from rosters.api import schemas
from rosters.force_import import ForceImport, roster_spec
from rosters.vocabulary import TrooperStatus, UnitStatus

AS_OF_PARAMETERS = [
    OpenApiParameter(
        "as_of", int, description="Show it as it stood after this event (a campaign sequence)."
    ),
    OpenApiParameter("as_of_battle", uuid.UUID, description="Show it around this battle..."),
    OpenApiParameter(
        "side",
        str,
        enum=["before", "after"],
        description="...just before it began (its start, not its planning), or after its end and "
        "after-action; required with as_of_battle. A battle not yet begun: 409 "
        "battle.not_started.",
    ),
]

IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    str,
    location=OpenApiParameter.HEADER,
    description="Repeated with the same key, the request gets the first answer and appends "
    "nothing.",
)


def _view_for(request: Request, campaign_id: uuid.UUID):
    upto = selectors.resolve_as_of(
        campaign_id,
        as_of=request.query_params.get("as_of"),
        as_of_battle=request.query_params.get("as_of_battle"),
        side=request.query_params.get("side"),
    )
    if request.query_params.get("as_of") not in (None, ""):
        # A battle's "after" moves while it is fought: only an explicit sequence is pinned.
        pin_answer(request, campaign_id, upto)
    return selectors.roster_view(campaign_id, upto), upto


def _not_then(kind: str) -> NotFound:
    return NotFound(f"{kind}.not_found", f"No such {kind} at that point.")


def _entity(request: Request, kind: str, entity_id: uuid.UUID) -> tuple[Reader, uuid.UUID]:
    campaign_id = campaign_read(request) or selectors.campaign_of(kind, entity_id)
    try:
        reader = reader_get(user=request.user, campaign_id=campaign_id)
    except NotFound:
        raise NotFound(f"{kind}.not_found", f"No such {kind}.") from None
    return reader, campaign_id


def _choices(request: Request, name: str, vocabulary: list[str]) -> set[str]:
    """A filter's values: repeated (``?status=fit&status=wounded``) or separated by commas
    (``?status=fit,wounded``), each one of ``vocabulary``; none given, no filter."""
    wanted = {
        value.strip()
        for raw in request.query_params.getlist(name)
        for value in raw.split(",")
        if value.strip()
    }
    unknown = sorted(wanted - set(vocabulary))
    if unknown:
        raise CommandError(
            "invalid.choice",
            f"{name} is one of {', '.join(vocabulary)}; not {', '.join(unknown)}.",
            field=name,
        )
    return wanted


def _filter(name: str, vocabulary: list[str], what: str) -> OpenApiParameter:
    return OpenApiParameter(
        name,
        OpenApiTypes.STR,
        many=True,
        explode=False,
        enum=vocabulary,
        description=f"Only {what} whose {name} is one of these (separated by commas, or the "
        "parameter repeated); any other value: 400 invalid.choice.",
    )


UNIT_STATUSES = [s.value for s in UnitStatus]
TROOPER_STATUSES = [s.value for s in TrooperStatus]


class CampaignForcesApi(APIView):
    """A campaign's forces; umpires load new ones from roster files."""

    @extend_schema(
        parameters=[
            *AS_OF_PARAMETERS,
            *OFFSET_PAGE_PARAMETERS,
            OpenApiParameter(
                "force_side",
                str,
                description="Only the forces of this side, exactly as their roster files name "
                "it (``side`` is taken by as_of_battle).",
            ),
        ],
        responses={200: offset_page_of(schemas.ForceOutlineSerializer)},
    )
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        """Every force of the campaign in the order they were raised, in outline: anyone in the
        campaign sees every force's name, side and size, and ``readable`` says whether they
        may see its details."""
        reader = reader_get(user=request.user, campaign_id=campaign_id)
        view, _ = _view_for(request, campaign_id)
        side = request.query_params.get("force_side")
        outlines = [
            outline
            for outline in selectors.force_outlines(view)
            if side in (None, "") or outline["side"] == side
        ]
        page = offset_page(request, outlines)
        page["results"] = [
            {**outline, "readable": reader.sees_force(outline["id"])} for outline in page["results"]
        ]
        return Response(page)

    @extend_schema(
        request=schemas.ForceImportSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: schemas.ForceDetailSerializer},
    )
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        """Raise a force from a roster file (docs/roster-format.md); a file with problems is
        refused with every problem listed, each with its ``path`` and ``line``."""
        require_umpire(user=request.user, campaign_id=campaign_id)
        body = schemas.ForceImportSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        # A campaign's ruleset never changes: the file is read against it before the command.
        ruleset = Campaign.objects.get(pk=campaign_id).ruleset
        source = body.validated_data["source"]
        spec = roster_spec(body.validated_data["roster"], ruleset=ruleset, source=source)

        def force_created(outcome: Outcome) -> tuple[int, Any]:
            view = selectors.CurrentRoster(campaign_id)
            force = view.force(outcome.result)
            assert force is not None  # the import has just raised it
            return status.HTTP_201_CREATED, selectors.force_detail(view, force)

        return execute(
            request,
            ForceImport.name,
            campaign_id=campaign_id,
            params={"force": spec, "source": source},
            respond=force_created,
        )


class RosterEntityApi(APIView):
    """Reads one force, unit, trooper or vehicle, now or as of a point, for a member who sees
    its force whole (``campaigns.visibility``): another player's force is refused (403: every
    member is shown its outline), its units, troopers and vehicles are not found (404). What is
    read of it (its details, its lists, its history) follows that same rule."""

    kind: str
    lookup: str  # the RosterView method that finds it

    def present(
        self, request: Request, view: selectors.RosterView, row: dict[str, Any], judge: Judge
    ) -> Any:
        return row

    @kept_by_log_position(lambda view, ids: f"{view.kind}:{next(iter(ids.values()))}")
    def get(self, request: Request, **ids: uuid.UUID) -> Response:
        (entity_id,) = ids.values()
        reader, campaign_id = _entity(request, self.kind, entity_id)
        view, upto = _view_for(request, campaign_id)
        row = getattr(view, self.lookup)(entity_id)
        # Whose it is, checked before whether it existed at the point asked: asking about the
        # past tells nothing either.
        if self.kind == "force":
            require_force_whole(reader, entity_id)
        elif not reader.sees_every_force:
            now = (
                row
                if upto is None
                else getattr(selectors.CurrentRoster(campaign_id), self.lookup)(entity_id)
            )
            require_entity_whole(reader, now["force_id"] if now else UNKNOWN_FORCE, self.kind)
        if row is None:
            raise _not_then(self.kind)
        return Response(self.present(request, view, row, Judge(reader, at=upto)))


def _reads(serializer: Any, *parameters: OpenApiParameter) -> Callable[[Any], Any]:
    """The schema of a roster read: its answer, and the as-of parameters besides its own."""
    return extend_schema(parameters=[*AS_OF_PARAMETERS, *parameters], responses={200: serializer})


@extend_schema_view(get=_reads(schemas.ForceDetailSerializer))
class ForceDetailApi(RosterEntityApi):
    """A force's organisation as a tree of units with their troopers and vehicles."""

    kind, lookup = "force", "force"

    def present(
        self, request: Request, view: selectors.RosterView, row: dict[str, Any], judge: Judge
    ) -> Any:
        return selectors.force_detail(view, row)


@extend_schema_view(
    get=_reads(
        offset_page_of(schemas.UnitSummarySerializer),
        *OFFSET_PAGE_PARAMETERS,
        _filter("status", UNIT_STATUSES, "units"),
    )
)
class ForceUnitsApi(RosterEntityApi):
    """A force's units, a page at a time, in the order of its organisation (each formation
    followed by the units under it), each with its strength; to a member who may read the
    force's details (403 force.not_yours to another player)."""

    kind, lookup = "force", "force"

    def present(
        self, request: Request, view: selectors.RosterView, row: dict[str, Any], judge: Judge
    ) -> Any:
        statuses = _choices(request, "status", UNIT_STATUSES)
        return offset_page(request, selectors.force_units(view, row, statuses))


@extend_schema_view(
    get=_reads(
        offset_page_of(schemas.TrooperSerializer),
        *OFFSET_PAGE_PARAMETERS,
        _filter("status", TROOPER_STATUSES, "troopers"),
    )
)
class ForceTroopersApi(RosterEntityApi):
    """A force's troopers, a page at a time, unit by unit in the order of its organisation;
    to a member who may read the force's details (403 force.not_yours to another player)."""

    kind, lookup = "force", "force"

    def present(
        self, request: Request, view: selectors.RosterView, row: dict[str, Any], judge: Judge
    ) -> Any:
        statuses = _choices(request, "status", TROOPER_STATUSES)
        return offset_page(request, selectors.force_troopers(view, row, statuses))


@extend_schema_view(get=_reads(schemas.UnitDetailSerializer))
class UnitDetailApi(RosterEntityApi):
    """A unit: strength against TO&E, quality, leadership, fatigue, status, its troopers."""

    kind, lookup = "unit", "unit"

    def present(
        self, request: Request, view: selectors.RosterView, row: dict[str, Any], judge: Judge
    ) -> Any:
        return selectors.unit_detail(view, row)


def _lines_page(
    request: Request, read: Callable[..., list[dict[str, Any]]], entity_id: Any, judge: Judge
) -> dict[str, Any]:
    """The page the request asks (``after``, ``limit``) of a unit's history or a trooper's
    service record (``read``): the lines the reader may see, read about a page at a time."""
    after = int_param(request, "after", 0, low=0, high=2**62)
    limit = int_param(request, "limit", PAGE_DEFAULT, low=1, high=PAGE_MAX)
    lines = (
        line
        for line in selectors.lines_as_read(read, entity_id, after=after, chunk=2 * limit + 1)
        if judge.sees_row(line["sequence"], battle_id=line.get("battle_id"))
    )
    return history_page(request, lines, limit=limit)


def history_page(
    request: Request, lines: Iterable[dict[str, Any]], *, limit: int
) -> dict[str, Any]:
    """A page of a unit's history, never splitting the lines one event tells the unit."""
    return event_lines_page(request, lines, limit=limit)


@extend_schema_view(
    get=_reads(sequence_page_of(schemas.UnitHistoryEntrySerializer), *SEQUENCE_PAGE_PARAMETERS)
)
class UnitHistoryApi(RosterEntityApi):
    """Every change to a unit, oldest first, a page at a time, with its cause in plain words;
    what the umpire hid is left out until its reveal (and in views as of a point before it).

    The cursor is the campaign sequence of the event a line tells (``after=``); the lines one
    event tells the unit share it and are never split between pages, so a page may hold a few
    more than ``limit``."""

    kind, lookup = "unit", "unit"

    def present(
        self, request: Request, view: selectors.RosterView, row: dict[str, Any], judge: Judge
    ) -> Any:
        return _lines_page(request, view.unit_history, row["id"], judge)


# How many lines of his service record a trooper's detail carries; the rest is a page away.
SERVICE_RECORD_IN_DETAIL = PAGE_DEFAULT


@extend_schema_view(get=_reads(schemas.TrooperDetailSerializer))
class TrooperDetailApi(RosterEntityApi):
    """A trooper with their service record (what the umpire hid left out until its reveal): its
    first lines, and the link to the rest (``service_record_next``) if there is more."""

    kind, lookup = "trooper", "trooper"

    def present(
        self, request: Request, view: selectors.RosterView, row: dict[str, Any], judge: Judge
    ) -> Any:
        detail = selectors.trooper_detail(view, row)
        lines = judge.shown(detail["service_record"])
        first = lines[:SERVICE_RECORD_IN_DETAIL]
        following = None
        if len(lines) > len(first):
            query = request.query_params.copy()
            query["after"] = str(first[-1]["sequence"])
            query["limit"] = str(SERVICE_RECORD_IN_DETAIL)
            following = request.build_absolute_uri(
                reverse("trooper-service-record", args=[row["id"]]) + "?" + query.urlencode()
            )
        return {**detail, "service_record": first, "service_record_next": following}


@extend_schema_view(
    get=_reads(sequence_page_of(schemas.ServiceRecordEntrySerializer), *SEQUENCE_PAGE_PARAMETERS)
)
class TrooperServiceRecordApi(RosterEntityApi):
    """A trooper's service record, oldest first, a page at a time; what the umpire hid is left
    out until its reveal (and in views as of a point before it). The cursor is the campaign
    sequence of the event a line tells (``after=``)."""

    kind, lookup = "trooper", "trooper"

    def present(
        self, request: Request, view: selectors.RosterView, row: dict[str, Any], judge: Judge
    ) -> Any:
        return _lines_page(request, view.service_record, row["id"], judge)


@extend_schema_view(get=_reads(schemas.VehicleSerializer))
class VehicleDetailApi(RosterEntityApi):
    """A vehicle with its damage state and the day its repair ends."""

    kind, lookup = "vehicle", "vehicle"


# --- Adjustments ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Adjustment:
    """An adjustment: its command, the body it takes and what it does."""

    command: str
    body: type[schemas.CommandSerializer]
    about: str

    def params(self, data: dict[str, Any], **ids: uuid.UUID) -> dict[str, Any]:
        fields = {k: v for k, v in data.items() if k != "expected_version"}
        return {**fields, **ids}


UNIT_ACTIONS = {
    "quality": Adjustment(
        adjustments.UnitQualitySet.name,
        schemas.QualityAdjustmentSerializer,
        "Set a unit's quality by the umpire's judgement (SG2 P.60's alternative to points).",
    ),
    "leadership": Adjustment(
        adjustments.UnitLeadershipSet.name,
        schemas.LeadershipAdjustmentSerializer,
        "Set a unit's leadership value (1 best, 3 worst; SG2 P.9).",
    ),
    "attach": Adjustment(
        adjustments.UnitAttach.name,
        schemas.AttachmentSerializer,
        "Attach a unit to another of its force.",
    ),
    "detach": Adjustment(
        adjustments.UnitDetach.name,
        schemas.AdjustmentSerializer,
        "Detach a unit from the unit it is attached to.",
    ),
    "regroup": Adjustment(
        regroup.UnitsRegroup.name,
        schemas.RegroupSerializer,
        "Regroup two understrength units into one (SG2 P.17).",
    ),
    "move": Adjustment(
        moves.UnitMove.name,
        schemas.MoveSerializer,
        "Move a unit between the line, a safe area, a rear area and the field (SG2 P.61); a "
        "unit unfit for combat sent back into the line disintegrates.",
    ),
    "disband": Adjustment(
        adjustments.UnitDisband.name, schemas.AdjustmentSerializer, "Disband a unit."
    ),
}

TROOPER_ACTIONS = {
    "rename": Adjustment(
        adjustments.TrooperRename.name, schemas.RenameSerializer, "Rename a trooper."
    ),
    "transfer": Adjustment(
        adjustments.TrooperTransfer.name,
        schemas.TransferSerializer,
        "Transfer a trooper to another unit of their force.",
    ),
}


def _the_event(outcome: Outcome) -> tuple[int, Any]:
    """201 and the one event an adjustment appended."""
    return status.HTTP_201_CREATED, event_to_json(outcome.events[0])


class AdjustApi(APIView):
    """An umpire's adjustment to a unit or a trooper (``adjustment``), answered with the one
    event it appended."""

    kind: str
    adjustment: Adjustment

    def get_serializer_class(self) -> type[serializers.Serializer]:
        return self.adjustment.body  # the request body, for the schema

    @extend_schema(parameters=[IDEMPOTENCY_KEY], responses={201: EventOutputSerializer})
    def post(self, request: Request, **ids: uuid.UUID) -> Response:
        (entity_id,) = ids.values()
        _, campaign_id = _entity(request, self.kind, entity_id)
        require_umpire(user=request.user, campaign_id=campaign_id)
        body = self.adjustment.body(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            self.adjustment.command,
            campaign_id=campaign_id,
            params=self.adjustment.params(body.validated_data, **ids),
            respond=_the_event,
        )


def adjust_api(kind: str, action: str, adjustment: Adjustment) -> type[AdjustApi]:
    """The view of one adjustment (its own class, so the schema gives it its own body)."""
    name = f"{kind.title()}{action.title()}Api"
    return type(
        name, (AdjustApi,), {"__doc__": adjustment.about, "kind": kind, "adjustment": adjustment}
    )
