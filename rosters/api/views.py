"""Rosters over HTTP: forces, units, troopers and vehicles, now or as of any point, their
histories, and the umpire's adjustments."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
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
from eventlog.api.serializers import event_to_json
from eventlog.caching import pin_answer
from eventlog.commands import Outcome
from eventlog.errors import CommandError, NotFound
from rosters import adjustments, moves, regroup, selectors
from rosters.force_import import ForceImport, roster_spec

AS_OF_PARAMETERS = [
    OpenApiParameter("as_of", int, description="Show it as it stood after this event."),
    OpenApiParameter("as_of_battle", uuid.UUID, description="Show it around this battle..."),
    OpenApiParameter(
        "side",
        str,
        enum=["before", "after"],
        description="...just before it began (its start, not its planning), or after its end and "
        "after-action. A battle not yet begun: 409 battle.not_started.",
    ),
]


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
    campaign_id = selectors.campaign_of(kind, entity_id)
    try:
        reader = reader_get(user=request.user, campaign_id=campaign_id)
    except NotFound:
        raise NotFound(f"{kind}.not_found", f"No such {kind}.") from None
    return reader, campaign_id


class ForceImportSerializer(serializers.Serializer):
    roster = serializers.CharField(help_text="The roster file's text, YAML or JSON.")
    # The serializer's metaclass takes declared fields out of the class, so this field does not
    # replace ``Field.source`` as the stubs take it to.
    source = serializers.CharField(  # type: ignore[assignment]
        required=False, default="upload", max_length=200
    )


class CampaignForcesApi(APIView):
    """A campaign's forces; umpires load new ones from roster files."""

    @extend_schema(responses={200: dict})
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        reader = reader_get(user=request.user, campaign_id=campaign_id)
        view, _ = _view_for(request, campaign_id)
        return Response(
            [
                {**outline, "readable": reader.sees_force(outline["id"])}
                for outline in selectors.force_outlines(view)
            ]
        )

    @extend_schema(request=ForceImportSerializer, responses={201: dict})
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        require_umpire(user=request.user, campaign_id=campaign_id)
        body = ForceImportSerializer(data=request.data)
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
    member is shown its outline), its units, troopers and vehicles are not found (404)."""

    kind: str
    lookup: str  # the RosterView method that finds it

    def present(self, view: selectors.RosterView, row: dict[str, Any], judge: Judge) -> Any:
        return row

    @extend_schema(parameters=AS_OF_PARAMETERS, responses=dict)
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
        return Response(self.present(view, row, Judge(reader, at=upto)))


class ForceDetailApi(RosterEntityApi):
    """A force's organisation as a tree of units with their troopers and vehicles."""

    kind, lookup = "force", "force"

    def present(self, view: selectors.RosterView, row: dict[str, Any], judge: Judge) -> Any:
        return selectors.force_detail(view, row)


class UnitDetailApi(RosterEntityApi):
    """A unit: strength against TO&E, quality, leadership, fatigue, status, its troopers."""

    kind, lookup = "unit", "unit"

    def present(self, view: selectors.RosterView, row: dict[str, Any], judge: Judge) -> Any:
        return selectors.unit_detail(view, row)


class UnitHistoryApi(RosterEntityApi):
    """Every change to a unit, oldest first, with its cause in plain words; what the umpire hid
    is left out until its reveal (and in views as of a point before it)."""

    kind, lookup = "unit", "unit"

    def present(self, view: selectors.RosterView, row: dict[str, Any], judge: Judge) -> Any:
        return {"unit": row["name"], "history": judge.shown(view.unit_history(row["id"]))}


class TrooperDetailApi(RosterEntityApi):
    """A trooper with their service record (what the umpire hid left out until its reveal)."""

    kind, lookup = "trooper", "trooper"

    def present(self, view: selectors.RosterView, row: dict[str, Any], judge: Judge) -> Any:
        detail = selectors.trooper_detail(view, row)
        return {**detail, "service_record": judge.shown(detail["service_record"])}


class VehicleDetailApi(RosterEntityApi):
    """A vehicle with its damage state and the day its repair ends."""

    kind, lookup = "vehicle", "vehicle"


# --- Adjustments ---------------------------------------------------------------------------------


class AdjustmentSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=500, required=False, default="", allow_blank=True)
    to = serializers.CharField(required=False, max_length=20)
    quality = serializers.CharField(required=False, max_length=20)
    leadership = serializers.IntegerField(required=False)
    name = serializers.CharField(required=False, max_length=200)
    to_unit_id = serializers.UUIDField(required=False)
    with_unit_id = serializers.UUIDField(required=False)


def _required(data: dict[str, Any], field: str) -> Any:
    if data.get(field) in (None, ""):
        raise CommandError("invalid.required", f"{field}: This field is required.", field=field)
    return data[field]


@dataclass(frozen=True)
class Adjustment:
    """An adjustment's command and the body fields it needs besides the reason."""

    command: str
    needs: tuple[str, ...] = ()

    def params(self, data: dict[str, Any], **ids: uuid.UUID) -> dict[str, Any]:
        needed = {field: _required(data, field) for field in self.needs}
        return {**ids, **needed, "reason": data["reason"]}


UNIT_ACTIONS = {
    "quality": Adjustment(adjustments.UnitQualitySet.name, ("quality",)),
    "leadership": Adjustment(adjustments.UnitLeadershipSet.name, ("leadership",)),
    "attach": Adjustment(adjustments.UnitAttach.name, ("to_unit_id",)),
    "detach": Adjustment(adjustments.UnitDetach.name),
    "regroup": Adjustment(regroup.UnitsRegroup.name, ("with_unit_id",)),
    "move": Adjustment(moves.UnitMove.name, ("to",)),
    "disband": Adjustment(adjustments.UnitDisband.name),
}

TROOPER_ACTIONS = {
    "rename": Adjustment(adjustments.TrooperRename.name, ("name",)),
    "transfer": Adjustment(adjustments.TrooperTransfer.name, ("to_unit_id",)),
}


def _the_event(outcome: Outcome) -> tuple[int, Any]:
    """201 and the one event an adjustment appended."""
    return status.HTTP_201_CREATED, event_to_json(outcome.events[0])


class UnitAdjustApi(APIView):
    """The umpire's adjustments to a unit: ``quality``, ``leadership``, ``attach``, ``detach``,
    ``regroup``, ``move`` and ``disband``, each with a reason."""

    @extend_schema(request=AdjustmentSerializer, responses={201: dict})
    def post(self, request: Request, unit_id: uuid.UUID, action: str) -> Response:
        _, campaign_id = _entity(request, "unit", unit_id)
        require_umpire(user=request.user, campaign_id=campaign_id)
        body = AdjustmentSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            UNIT_ACTIONS[action].command,
            campaign_id=campaign_id,
            params=UNIT_ACTIONS[action].params(body.validated_data, unit_id=unit_id),
            respond=_the_event,
        )


class TrooperAdjustApi(APIView):
    """The umpire's adjustments to a trooper: ``rename`` and ``transfer``, each with a reason."""

    @extend_schema(request=AdjustmentSerializer, responses={201: dict})
    def post(self, request: Request, trooper_id: uuid.UUID, action: str) -> Response:
        _, campaign_id = _entity(request, "trooper", trooper_id)
        require_umpire(user=request.user, campaign_id=campaign_id)
        body = AdjustmentSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            TROOPER_ACTIONS[action].command,
            campaign_id=campaign_id,
            params=TROOPER_ACTIONS[action].params(body.validated_data, trooper_id=trooper_id),
            respond=_the_event,
        )
