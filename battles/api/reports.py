"""Players' battle reports and the umpire's reconciliation over HTTP."""

from __future__ import annotations

import inspect
import uuid

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from battles.api.schemas import IDEMPOTENCY_KEY, command_body
from battles.models import Battle
from battles.reports.commands import (
    BattleReportFile,
    DecideParams,
    ReportParams,
    ReportPointDecide,
    refuse_unseen_troopers,
    require_reporter,
)
from battles.reports.selectors import reconciliation_json, reports_seen
from campaigns.selectors import require_umpire
from campaigns.visibility import Judge, reader_get
from eventlog.api.commands import body_of, execute, params_of
from eventlog.errors import NotFound

REPORT_BODY = command_body(
    "BattleReportFile",
    ReportParams,
    description=inspect.cleandoc(BattleReportFile.__doc__ or ""),
    from_url=("battle_id",),
)
DECIDE_BODY = command_body(
    "ReportPointDecide",
    DecideParams,
    description=inspect.cleandoc(ReportPointDecide.__doc__ or ""),
    from_url=("battle_id",),
)


class ReportTrooperLineSerializer(serializers.Serializer):
    trooper_id = serializers.UUIDField()
    name = serializers.CharField(help_text="The trooper's name (blank if unknown to the reader).")
    status = serializers.ChoiceField(choices=["fit", "wounded", "killed"])


class ReportObjectiveLineSerializer(serializers.Serializer):
    side = serializers.CharField(help_text="The side whose mission the objective is.")
    objective = serializers.CharField()
    met = serializers.BooleanField()


class PointDecisionSerializer(serializers.Serializer):
    point = serializers.CharField(help_text="'trooper:<id>' or 'objective:<side>:<objective>'.")
    claimed = serializers.CharField(help_text="What the report said.")
    logged = serializers.CharField(help_text="What the log held when the umpire decided.")
    value = serializers.CharField(help_text="What stands.")
    decision = serializers.ChoiceField(choices=["accepted", "corrected", "rejected"])
    upheld = serializers.BooleanField(help_text="Whether the report's claim is what stands.")
    reason = serializers.CharField(allow_blank=True)
    sequence = serializers.IntegerField()


class BattleReportSerializer(serializers.Serializer):
    report_id = serializers.UUIDField()
    side = serializers.CharField()
    filed_by = serializers.CharField(allow_blank=True)
    sequence = serializers.IntegerField(help_text="The log's sequence of the filing.")
    troopers = ReportTrooperLineSerializer(many=True)
    objectives = ReportObjectiveLineSerializer(many=True)
    notes = serializers.CharField(allow_blank=True)
    decisions = PointDecisionSerializer(many=True)


class BattleReportsSerializer(serializers.Serializer):
    battle_id = serializers.UUIDField()
    reports = BattleReportSerializer(many=True, help_text="One a side at most, in side order.")


class ClaimSerializer(serializers.Serializer):
    side = serializers.CharField()
    report_id = serializers.UUIDField()
    value = serializers.CharField()
    implied = serializers.BooleanField(
        help_text="The report's own side's trooper, not named in it: claimed fit."
    )


class ReconciliationPointSerializer(serializers.Serializer):
    point = serializers.CharField()
    kind = serializers.ChoiceField(choices=["trooper", "objective"])
    name = serializers.CharField(help_text="The trooper's name, or the objective.")
    side = serializers.CharField()
    unit_id = serializers.UUIDField(allow_null=True)
    unit_name = serializers.CharField(allow_blank=True)
    trooper_id = serializers.UUIDField(allow_null=True)
    logged = serializers.CharField(
        help_text="What the log holds: fit, wounded or killed (or captured, evacuated...) for "
        "a trooper; met, not_met or unrecorded for an objective."
    )
    claims = ClaimSerializer(many=True)
    state = serializers.CharField(
        help_text="agreed, disagreement (the reports or the log differ), to_decide (a claim "
        "the log holds nothing for) or decided."
    )
    disagreement = serializers.BooleanField()
    decision = PointDecisionSerializer(allow_null=True, required=False)


class ReconciliationSerializer(serializers.Serializer):
    battle_id = serializers.UUIDField()
    name = serializers.CharField()
    status = serializers.CharField()
    reports = BattleReportSerializer(many=True)
    points = ReconciliationPointSerializer(many=True)
    undecided = serializers.IntegerField(help_text="Points that disagree or wait for a decision.")


def _battle(request: Request, battle_id: uuid.UUID) -> tuple[Battle, Judge]:
    battle = Battle.objects.filter(pk=battle_id).first()
    if battle is None:
        raise NotFound("battle.not_found", "No such battle.")
    try:
        judge = Judge(reader_get(user=request.user, campaign_id=battle.campaign_id))
    except NotFound:
        raise NotFound("battle.not_found", "No such battle.") from None
    if not judge.sees_battle(battle.id):
        raise NotFound("battle.not_found", "No such battle.")
    return battle, judge


class BattleReportsApi(APIView):
    """A battle's reports: each side's player files one after the battle ends; a player reads
    their own side's, with the umpire's decision on each point; an umpire reads them all."""

    @extend_schema(responses=BattleReportsSerializer)
    def get(self, request: Request, battle_id: uuid.UUID) -> Response:
        battle, judge = _battle(request, battle_id)
        body = {"battle_id": battle.id, "reports": reports_seen(battle, judge)}
        return Response(BattleReportsSerializer(body).data)

    @extend_schema(
        request=REPORT_BODY, parameters=[IDEMPOTENCY_KEY], responses={201: BattleReportSerializer}
    )
    def post(self, request: Request, battle_id: uuid.UUID) -> Response:
        battle, judge = _battle(request, battle_id)
        body = body_of(request)
        require_reporter(user=request.user, battle=battle, side=str(body.get("side", "")))
        refuse_unseen_troopers(judge.reader, body.get("troopers"))

        def answer(outcome):
            seen = reports_seen(battle, Judge(judge.reader))
            filed = next(r for r in seen if r["side"] == body["side"])
            return status.HTTP_201_CREATED, BattleReportSerializer(filed).data

        return execute(
            request,
            BattleReportFile.name,
            campaign_id=battle.campaign_id,
            params=params_of(body, battle_id=battle.id),
            respond=answer,
        )


class BattleReconciliationApi(APIView):
    """The umpire's reconciliation: both reports beside the log, point by point (every trooper
    a report or the log has hurt, every objective), each disagreement marked; and the decision
    on a point (umpire only)."""

    @extend_schema(responses=ReconciliationSerializer)
    def get(self, request: Request, battle_id: uuid.UUID) -> Response:
        battle, _ = _battle(request, battle_id)
        require_umpire(user=request.user, campaign_id=battle.campaign_id)
        return Response(ReconciliationSerializer(reconciliation_json(battle)).data)

    @extend_schema(
        request=DECIDE_BODY, parameters=[IDEMPOTENCY_KEY], responses={200: ReconciliationSerializer}
    )
    def post(self, request: Request, battle_id: uuid.UUID) -> Response:
        battle, _ = _battle(request, battle_id)
        require_umpire(user=request.user, campaign_id=battle.campaign_id)
        return execute(
            request,
            ReportPointDecide.name,
            campaign_id=battle.campaign_id,
            params=params_of(body_of(request), battle_id=battle.id),
            respond=lambda outcome: (
                status.HTTP_200_OK,
                ReconciliationSerializer(reconciliation_json(battle)).data,
            ),
        )


urlpatterns = [
    path("battles/<uuid:battle_id>/reports/", BattleReportsApi.as_view(), name="battle-reports"),
    path(
        "battles/<uuid:battle_id>/reconciliation/",
        BattleReconciliationApi.as_view(),
        name="battle-reconciliation",
    ),
]
