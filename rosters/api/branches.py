"""Branches over HTTP: make a what-if branch of a campaign, list and read them, compare one with
its original, and delete it (``campaigns.branches``, ``rosters.branch_comparison``)."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns import branches, selectors
from campaigns.models import Campaign
from campaigns.visibility import job_as_seen, reader_get, reader_of
from eventlog.api.pagination import OFFSET_PAGE_PARAMETERS, offset_page, offset_page_of
from eventlog.api.serializers import ErrorSerializer, JobSerializer
from eventlog.errors import CommandError, NotFound
from rosters import branch_comparison


class PointSerializer(serializers.Serializer):
    sequence = serializers.IntegerField(
        required=False, min_value=1, help_text="After this event of the original's log."
    )
    before_battle = serializers.UUIDField(required=False, help_text="Just before this battle.")
    after_battle = serializers.UUIDField(
        required=False, help_text="After this battle (its end and after-action)."
    )


class BranchCreateSerializer(serializers.Serializer):
    point = PointSerializer(help_text="Where the branch leaves the original: give one of three.")
    options = serializers.DictField(
        required=False,
        default=dict,
        help_text="The options the branch plays under instead of the original's "
        "(replacement_die: 10, say); the others keep the original's values.",
    )
    name = serializers.CharField(required=False, max_length=branches.MAX_NAME)
    seed = serializers.RegexField(
        r"^[0-9a-f]{64}$",
        required=False,
        help_text="The seed of the dice the branch rolls afresh (64 hex digits); random if left "
        "out.",
    )


class BranchSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    original_id = serializers.UUIDField()
    point = serializers.CharField(help_text="Where it leaves the original, in words.")
    sequence = serializers.IntegerField(help_text="The original's last event it copies.")
    original_last_sequence = serializers.IntegerField(
        help_text="The original's last event when the branch was made: what it plays through."
    )
    option_changes = serializers.DictField()
    branched_by = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    job = JobSerializer(allow_null=True, help_text="The job that plays the original through.")


def _branch_json(request: Request, campaign: Campaign) -> dict[str, Any]:
    origin = campaign.branch_of or {}
    job = branches.rerun_job(campaign.id)
    shown = None
    if job is not None:
        reader = reader_get(user=request.user, campaign_id=campaign.id)
        shown = job_as_seen(reader, job)
    return {
        "id": str(campaign.id),
        "name": campaign.name,
        "original_id": origin.get("campaign_id"),
        "point": origin.get("point", ""),
        "sequence": origin.get("sequence"),
        "original_last_sequence": origin.get("original_last_sequence"),
        "option_changes": origin.get("option_changes", {}),
        "branched_by": origin.get("branched_by"),
        "created_at": campaign.created_at,
        "job": shown,
    }


def _user_id(request: Request) -> int:
    user = request.user
    assert isinstance(user, AbstractBaseUser)  # an umpire, so signed in
    return int(user.pk)


def _branch_of(request: Request, campaign_id: uuid.UUID, branch_id: uuid.UUID) -> Campaign:
    """A branch of the campaign that the user may read (a member of it)."""
    selectors.require_reader(user=request.user, campaign_id=branch_id)
    branch = Campaign.objects.get(pk=branch_id)
    if not branch.branch_of or str(branch.branch_of.get("campaign_id")) != str(campaign_id):
        raise NotFound("branch.not_found", "No such branch of this campaign.")
    return branch


class CampaignBranchesApi(APIView):
    """A campaign's what-if branches. ``POST`` makes one (umpires): the original's log up to
    the point is copied, the options changed, and a job plays the original's later commands
    through again under them, with the original's dice wherever the rules ask for the same die
    for the same purpose (202, the job's progress at ``Location``). The original is never
    changed."""

    @extend_schema(parameters=OFFSET_PAGE_PARAMETERS, responses=offset_page_of(BranchSerializer))
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        selectors.require_reader(user=request.user, campaign_id=campaign_id)
        user = request.user
        assert isinstance(user, AbstractBaseUser)  # a member, so signed in
        readable = selectors.campaigns_for_user(user).values("id")
        page = offset_page(request, branches.branches_of(campaign_id).filter(id__in=readable))
        page["results"] = [_branch_json(request, branch) for branch in page["results"]]
        return Response(page)

    @extend_schema(
        request=BranchCreateSerializer,
        responses={
            202: BranchSerializer,
            400: OpenApiResponse(
                ErrorSerializer,
                description="branch.point_required, branch.point_outside_log, "
                "branch.point_inside_command, options.unknown, options.choice (and the other "
                "refusals of an option's value)",
            ),
            404: OpenApiResponse(ErrorSerializer, description="battle.not_found"),
        },
    )
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        given = BranchCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        point = branches.resolve_point(campaign_id, **data["point"])
        made = branches.branch_create(
            original_id=campaign_id,
            actor_id=_user_id(request),
            point=point,
            option_changes=data.get("options", {}),
            name=data.get("name"),
            seed=data.get("seed"),
        )
        branch = Campaign.objects.get(pk=made.branch_id)
        response = Response(_branch_json(request, branch), status=status.HTTP_202_ACCEPTED)
        response["Location"] = request.build_absolute_uri(f"/api/v1/jobs/{made.job.pk}/")
        return response


class CampaignBranchDetailApi(APIView):
    """One branch of the campaign, with the progress of its play-through. ``DELETE`` (the umpire
    who made it) erases the whole branch campaign, never an event of the original."""

    @extend_schema(responses=BranchSerializer)
    def get(self, request: Request, campaign_id: uuid.UUID, branch_id: uuid.UUID) -> Response:
        return Response(_branch_json(request, _branch_of(request, campaign_id, branch_id)))

    @extend_schema(
        responses={
            204: None,
            409: OpenApiResponse(
                ErrorSerializer, description="branch.not_yours, branch.has_branches, branch.busy"
            ),
        }
    )
    def delete(self, request: Request, campaign_id: uuid.UUID, branch_id: uuid.UUID) -> Response:
        _branch_of(request, campaign_id, branch_id)
        selectors.require_umpire(user=request.user, campaign_id=branch_id)
        branches.branch_delete(branch_id=branch_id, actor_id=_user_id(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class FiguresSerializer(serializers.Serializer):
    quality = serializers.CharField(allow_null=True)
    strength = serializers.IntegerField()
    casualties = serializers.IntegerField()
    dead = serializers.IntegerField()
    in_hospital = serializers.IntegerField()
    fatigue = serializers.CharField(allow_null=True)
    experience_points = serializers.IntegerField()
    status = serializers.CharField()


class UnitComparisonSerializer(serializers.Serializer):
    unit_id = serializers.UUIDField()
    branch_unit_id = serializers.UUIDField()
    name = serializers.CharField()
    original = FiguresSerializer()
    branch = FiguresSerializer(allow_null=True)
    differs = serializers.ListField(child=serializers.CharField())


class ForceComparisonSerializer(serializers.Serializer):
    force_id = serializers.UUIDField()
    branch_force_id = serializers.UUIDField()
    name = serializers.CharField()
    side = serializers.CharField()
    units = UnitComparisonSerializer(many=True)
    hidden = serializers.BooleanField(required=False)


class ComparisonSerializer(serializers.Serializer):
    original = serializers.DictField()
    branch = serializers.DictField()
    as_of_battle = serializers.UUIDField(allow_null=True)
    compared = serializers.ListField(child=serializers.CharField())
    forces = ForceComparisonSerializer(many=True)
    differing_units = serializers.ListField(child=serializers.UUIDField())
    refused = serializers.ListField(child=serializers.DictField())
    first_divergence = serializers.DictField(allow_null=True)


class CampaignBranchComparisonApi(APIView):
    """The branch beside its original, per force and unit: quality, strength, casualties, dead,
    in hospital, fatigue, points and status, and which of them differ; now, or after a battle
    (``?as_of_battle=``, a battle of the original). Also the commands the branch's rules refused
    and the first command whose outcome diverged, with the dice on each side (umpires only: the
    dice name every force). A player sees their own forces' units, and others' as far as the
    campaign lets players see other forces."""

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "as_of_battle", uuid.UUID, description="Compare after this battle of the original."
            )
        ],
        responses=ComparisonSerializer,
    )
    def get(self, request: Request, campaign_id: uuid.UUID, branch_id: uuid.UUID) -> Response:
        membership = selectors.require_reader(user=request.user, campaign_id=campaign_id)
        _branch_of(request, campaign_id, branch_id)
        raw = request.query_params.get("as_of_battle")
        as_of_battle = None
        if raw not in (None, ""):
            try:
                as_of_battle = uuid.UUID(raw)
            except ValueError:
                raise CommandError(
                    "invalid.as_of_battle", "as_of_battle is a battle id.", field="as_of_battle"
                ) from None
        comparison = branch_comparison.compare(campaign_id, branch_id, as_of_battle=as_of_battle)
        return Response(branch_comparison.as_seen(comparison, reader_of(membership)))
