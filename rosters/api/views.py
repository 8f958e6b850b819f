"""Rosters over HTTP: forces, units, troopers and vehicles, now or as of any point, their
histories, and the umpire's adjustments."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.models import Campaign, Membership
from campaigns.selectors import membership_get, require_umpire
from eventlog.api.serializers import event_to_json
from eventlog.errors import CommandError, NotFound
from rosters import selectors, services
from rosters.models import Trooper, Unit
from rosters.roster_file import RosterFileError

AS_OF_PARAMETERS = [
    OpenApiParameter("as_of", int, description="Show it as it stood after this event."),
    OpenApiParameter("as_of_battle", uuid.UUID, description="Show it around this battle..."),
    OpenApiParameter("side", str, enum=["before", "after"], description="...before or after it."),
]


class RosterRejected(CommandError):
    """A roster file with problems; every problem is listed."""

    def __init__(self, error: RosterFileError) -> None:
        first = error.problems[0]
        count = len(error.problems)
        super().__init__(
            first.code,
            f"The roster file has {count} problem{'s' if count != 1 else ''}; the first: "
            f"{first.message}",
            field=first.path,
        )
        self.problems = error.problems

    def as_dict(self) -> dict[str, Any]:
        return {
            **super().as_dict(),
            "problems": [
                {
                    "path": p.path,
                    "line": p.line,
                    "field": p.field,
                    "code": p.code,
                    "message": p.message,
                }
                for p in self.problems
            ],
        }


def _view_for(request: Request, campaign_id: uuid.UUID):
    upto = selectors.resolve_as_of(
        campaign_id,
        as_of=request.query_params.get("as_of"),
        as_of_battle=request.query_params.get("as_of_battle"),
        side=request.query_params.get("side"),
    )
    return selectors.roster_view(campaign_id, upto), upto


def _not_then(kind: str) -> NotFound:
    return NotFound(f"{kind}.not_found", f"No such {kind} at that point.")


def _entity(request: Request, kind: str, entity_id: uuid.UUID) -> tuple[Membership, uuid.UUID]:
    campaign_id = selectors.campaign_of(kind, entity_id)
    try:
        membership = membership_get(user=request.user, campaign_id=campaign_id)
    except NotFound:
        raise NotFound(f"{kind}.not_found", f"No such {kind}.") from None
    return membership, campaign_id


class ForceImportSerializer(serializers.Serializer):
    roster = serializers.CharField(help_text="The roster file's text, YAML or JSON.")
    source = serializers.CharField(required=False, default="upload", max_length=200)


class CampaignForcesApi(APIView):
    """A campaign's forces; umpires load new ones from roster files."""

    @extend_schema(responses={200: dict})
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        membership = membership_get(user=request.user, campaign_id=campaign_id)
        view, _ = _view_for(request, campaign_id)
        allowed = selectors.readable_forces(membership)
        return Response(
            [
                {**outline, "readable": allowed is None or str(outline["id"]) in allowed}
                for outline in selectors.force_outlines(view)
            ]
        )

    @extend_schema(request=ForceImportSerializer, responses={201: dict})
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        require_umpire(user=request.user, campaign_id=campaign_id)
        body = ForceImportSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        campaign = Campaign.objects.get(pk=campaign_id)
        try:
            force = services.force_import_text(
                campaign=campaign,
                text=body.validated_data["roster"],
                source=body.validated_data["source"],
                actor=request.user,
            )
        except RosterFileError as error:
            raise RosterRejected(error) from None
        view = selectors.CurrentRoster(campaign_id)
        return Response(
            selectors.force_detail(view, view.force(force.id)), status=status.HTTP_201_CREATED
        )


class RosterEntityApi(APIView):
    """Reads one force, unit, trooper or vehicle, now or as of a point, for a member allowed
    to see its force."""

    kind: str
    lookup: str  # the RosterView method that finds it

    def present(self, view: selectors.RosterView, row: dict[str, Any]) -> Any:
        return row

    @extend_schema(parameters=AS_OF_PARAMETERS, responses=dict)
    def get(self, request: Request, **ids: uuid.UUID) -> Response:
        (entity_id,) = ids.values()
        membership, campaign_id = _entity(request, self.kind, entity_id)
        view, _ = _view_for(request, campaign_id)
        row = getattr(view, self.lookup)(entity_id)
        if row is None:
            raise _not_then(self.kind)
        selectors.check_force_readable(
            membership, row["id"] if self.kind == "force" else row["force_id"]
        )
        return Response(self.present(view, row))


class ForceDetailApi(RosterEntityApi):
    """A force's organisation as a tree of units with their troopers and vehicles."""

    kind, lookup = "force", "force"

    def present(self, view: selectors.RosterView, row: dict[str, Any]) -> Any:
        return selectors.force_detail(view, row)


class UnitDetailApi(RosterEntityApi):
    """A unit: strength against TO&E, quality, leadership, fatigue, status, its troopers."""

    kind, lookup = "unit", "unit"

    def present(self, view: selectors.RosterView, row: dict[str, Any]) -> Any:
        return selectors.unit_detail(view, row)


class UnitHistoryApi(RosterEntityApi):
    """Every change to a unit, oldest first, with its cause in plain words."""

    kind, lookup = "unit", "unit"

    def present(self, view: selectors.RosterView, row: dict[str, Any]) -> Any:
        return {"unit": row["name"], "history": view.unit_history(row["id"])}


class TrooperDetailApi(RosterEntityApi):
    """A trooper with their service record."""

    kind, lookup = "trooper", "trooper"

    def present(self, view: selectors.RosterView, row: dict[str, Any]) -> Any:
        return selectors.trooper_detail(view, row)


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


def _same_campaign_unit(campaign_id: uuid.UUID, unit_id: uuid.UUID, field: str) -> Unit:
    unit = Unit.objects.filter(campaign_id=campaign_id, id=unit_id).first()
    if unit is None:
        raise CommandError("unit.not_found", "No such unit in this campaign.", field=field)
    return unit


UNIT_ACTIONS = {
    "quality": lambda c, u, d, a: services.unit_quality_set(
        campaign=c, unit=u, quality=_required(d, "quality"), reason=d["reason"], actor=a
    ),
    "leadership": lambda c, u, d, a: services.unit_leadership_set(
        campaign=c, unit=u, leadership=_required(d, "leadership"), reason=d["reason"], actor=a
    ),
    "attach": lambda c, u, d, a: services.unit_attach(
        campaign=c,
        unit=u,
        to_unit=_same_campaign_unit(c.id, _required(d, "to_unit_id"), "to_unit_id"),
        reason=d["reason"],
        actor=a,
    ),
    "detach": lambda c, u, d, a: services.unit_detach(
        campaign=c, unit=u, reason=d["reason"], actor=a
    ),
    "regroup": lambda c, u, d, a: services.units_regroup(
        campaign=c,
        unit=u,
        other=_same_campaign_unit(c.id, _required(d, "with_unit_id"), "with_unit_id"),
        reason=d["reason"],
        actor=a,
    ),
    "move": lambda c, u, d, a: services.unit_move(
        campaign=c, unit=u, to=_required(d, "to"), reason=d["reason"], actor=a
    ),
    "disband": lambda c, u, d, a: services.unit_disband(
        campaign=c, unit=u, reason=d["reason"], actor=a
    ),
}

TROOPER_ACTIONS = {
    "rename": lambda c, t, d, a: services.trooper_rename(
        campaign=c, trooper=t, name=_required(d, "name"), reason=d["reason"], actor=a
    ),
    "transfer": lambda c, t, d, a: services.trooper_transfer(
        campaign=c,
        trooper=t,
        to_unit=_same_campaign_unit(c.id, _required(d, "to_unit_id"), "to_unit_id"),
        reason=d["reason"],
        actor=a,
    ),
}


class UnitAdjustApi(APIView):
    """The umpire's adjustments to a unit: ``quality``, ``leadership``, ``attach``, ``detach``,
    ``regroup`` and ``disband``, each with a reason."""

    @extend_schema(request=AdjustmentSerializer, responses={201: dict})
    def post(self, request: Request, unit_id: uuid.UUID, action: str) -> Response:
        _, campaign_id = _entity(request, "unit", unit_id)
        require_umpire(user=request.user, campaign_id=campaign_id)
        body = AdjustmentSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        unit = Unit.objects.filter(campaign_id=campaign_id, id=unit_id).first()
        if unit is None:
            raise NotFound("unit.not_found", "No such unit.")
        campaign = Campaign.objects.get(pk=campaign_id)
        event = UNIT_ACTIONS[action](campaign, unit, body.validated_data, request.user)
        return Response(event_to_json(event), status=status.HTTP_201_CREATED)


class TrooperAdjustApi(APIView):
    """The umpire's adjustments to a trooper: ``rename`` and ``transfer``, each with a reason."""

    @extend_schema(request=AdjustmentSerializer, responses={201: dict})
    def post(self, request: Request, trooper_id: uuid.UUID, action: str) -> Response:
        _, campaign_id = _entity(request, "trooper", trooper_id)
        require_umpire(user=request.user, campaign_id=campaign_id)
        body = AdjustmentSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        trooper = Trooper.objects.filter(campaign_id=campaign_id, id=trooper_id).first()
        if trooper is None:
            raise NotFound("trooper.not_found", "No such trooper.")
        campaign = Campaign.objects.get(pk=campaign_id)
        event = TROOPER_ACTIONS[action](campaign, trooper, body.validated_data, request.user)
        return Response(event_to_json(event), status=status.HTTP_201_CREATED)
