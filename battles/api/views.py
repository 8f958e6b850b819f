"""Battles over HTTP: planning, committing units, the lifecycle, battle actions and the log."""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Iterable
from typing import Any, ClassVar

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from battles import actions, selectors, services
from battles.api.schemas import (
    DICE_QUERY_HELP,
    EXPECTED_VERSION_HELP,
    IDEMPOTENCY_KEY,
    BattleDetailSerializer,
    BattleLogLineSerializer,
    BattleSerializer,
    camel,
    command_body,
    prompt_parameters,
)
from battles.models import Battle
from campaigns.models import Campaign
from campaigns.selectors import require_umpire
from campaigns.visibility import Judge, reader_get
from eventlog.api.commands import body_of, dice_of, dice_prompt, execute, params_of, query_params
from eventlog.api.pagination import (
    OFFSET_PAGE_PARAMETERS,
    PAGE_DEFAULT,
    PAGE_MAX,
    event_lines_page,
    int_param,
    offset_page,
    offset_page_of,
    sequence_page_of,
)
from eventlog.api.read_cache import kept_by_log_position
from eventlog.api.serializers import (
    DicePromptSerializer,
    EventsAppendedSerializer,
    JobSerializer,
)
from eventlog.commands import Command
from eventlog.errors import CommandError, NotFound


def _battle(request: Request, battle_id: uuid.UUID, *, umpire: bool = False):
    battle = Battle.objects.filter(pk=battle_id).first()
    if battle is None:
        raise NotFound("battle.not_found", "No such battle.")
    try:
        if umpire:
            require_umpire(user=request.user, campaign_id=battle.campaign_id)
        elif not Judge(reader_get(user=request.user, campaign_id=battle.campaign_id)).sees_battle(
            battle.id
        ):
            raise NotFound("battle.not_found", "No such battle.")  # hidden whole from this reader
    except NotFound:
        raise NotFound("battle.not_found", "No such battle.") from None
    return Campaign.objects.get(pk=battle.campaign_id), battle


def battle_json(battle: Battle, judge: Judge | None = None) -> dict[str, Any]:
    """The battle as :class:`BattleDetailSerializer` describes it, as the judge's reader sees
    it (``None``: the umpire's view, what a command's answer shows)."""
    return BattleDetailSerializer(selectors.battle_detail(battle, judge)).data


def _battle_answer(battle_id: uuid.UUID, code: int) -> Any:
    return lambda outcome: (code, battle_json(Battle.objects.get(pk=battle_id)))


class PlanSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    day = serializers.IntegerField(min_value=0)
    scenario = serializers.CharField(required=False, default="", allow_blank=True)
    sides = serializers.ListField(child=serializers.DictField(), min_length=2, max_length=2)
    attacker = serializers.CharField(required=False, allow_null=True, default=None)
    next_on_attacker_win = serializers.UUIDField(required=False, allow_null=True, default=None)
    next_on_defender_win = serializers.UUIDField(required=False, allow_null=True, default=None)
    hidden = serializers.DictField(
        required=False,
        allow_null=True,
        default=None,
        help_text='Record the whole battle hidden until revealed: {"force_ids": [...]} or '
        '{"side": "Blue"} names whose players may see it ({}: the umpires only).',
    )
    hidden_missions = serializers.ListField(
        child=serializers.CharField(max_length=100),
        required=False,
        default=list,
        help_text="The sides whose mission card is hidden from all but that side's players, "
        "until revealed.",
    )


# The plan as the schema publishes it: the command's own parameters (each side's mission card
# typed), which the command validates after the serializer above.
PLAN_BODY = command_body(
    "BattlePlan",
    services.PlanParams,
    description=inspect.cleandoc(services.BattlePlan.__doc__ or ""),
    unknown_ignored=True,
)

STATE_PARAMETER = OpenApiParameter(
    "state",
    str,
    enum=Battle.Status.values,
    many=True,
    description="Only the battles in these states: repeated (state=planned&state=committed) or "
    "separated by commas (state=planned,committed).",
)


def _states(request: Request) -> list[str]:
    """The ``state`` filter: repeated (``?state=planned&state=committed``) or separated by
    commas (``?state=planned,committed``); none given, no filter."""
    states = [
        value.strip()
        for raw in request.query_params.getlist("state")
        for value in raw.split(",")
        if value.strip()
    ]
    unknown = [state for state in states if state not in Battle.Status.values]
    if unknown:
        raise CommandError(
            "invalid.choice",
            f"state is one of {', '.join(Battle.Status.values)}; not {', '.join(unknown)}.",
            field="state",
        )
    return states


class CampaignBattlesApi(APIView):
    """A campaign's battles in order; umpires plan new ones."""

    @extend_schema(
        parameters=[STATE_PARAMETER, *OFFSET_PAGE_PARAMETERS],
        responses=offset_page_of(BattleSerializer),
    )
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        reader = reader_get(user=request.user, campaign_id=campaign_id)
        battles = selectors.battles_of(campaign_id, Judge(reader), statuses=_states(request))
        page = offset_page(request, battles)
        page["results"] = BattleSerializer(page["results"], many=True).data
        return Response(page)

    @extend_schema(
        request=PLAN_BODY,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: BattleDetailSerializer},
    )
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        require_umpire(user=request.user, campaign_id=campaign_id)
        body = PlanSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            services.BattlePlan.name,
            campaign_id=campaign_id,
            params=body.validated_data,
            respond=lambda outcome: (
                status.HTTP_201_CREATED,
                battle_json(Battle.objects.get(pk=outcome.result)),
            ),
        )


class BattleDetailApi(APIView):
    """A battle: its state, turn, sides and missions, the units fighting and their confidence."""

    @extend_schema(responses=BattleDetailSerializer)
    @kept_by_log_position(lambda view, ids: f"battle:{ids['battle_id']}")
    def get(self, request: Request, battle_id: uuid.UUID) -> Response:
        campaign, battle = _battle(request, battle_id)
        reader = reader_get(user=request.user, campaign_id=campaign.id)
        return Response(battle_json(battle, Judge(reader)))


# --- The lifecycle: one route and one body per step ---------------------------------------------


class CommitSerializer(serializers.Serializer):
    unit_ids = serializers.ListField(child=serializers.UUIDField(), min_length=1)


class EndSerializer(serializers.Serializer):
    winner = serializers.CharField(max_length=100, help_text="A side, or 'draw'.")
    objectives_met = serializers.ListField(child=serializers.UUIDField(), default=list)
    withdrawn = serializers.ListField(child=serializers.UUIDField(), default=list)
    routed = serializers.ListField(child=serializers.UUIDField(), default=list)
    surrendered = serializers.ListField(child=serializers.UUIDField(), default=list)
    regroups_persisting = serializers.ListField(
        child=serializers.UUIDField(),
        default=list,
        help_text="With the option regroup_persists = umpire: the units that regrouped into "
        "another in this battle whose merger stands; the others are dissolved (SG2 P.17).",
    )


def _with_expected_version(name: str, validates: type[serializers.Serializer] | None) -> type:
    """A step's body as the schema publishes it: what its serializer validates, and the
    ``expected_version`` the command runner reads from every body."""
    return type(
        name,
        (validates or serializers.Serializer,),
        {
            "__module__": __name__,
            "__doc__": validates.__doc__ if validates else None,
            "expected_version": serializers.IntegerField(
                min_value=0, required=False, allow_null=True, help_text=EXPECTED_VERSION_HELP
            ),
        },
    )


class BattleStepApi(APIView):
    """A step of a battle's lifecycle (umpire only): ``commit`` units, ``start``, next ``turn``,
    ``end``. Each answers the battle as the step left it."""

    step: ClassVar[str]
    command: ClassVar[str]
    validates: ClassVar[type[serializers.Serializer] | None] = None

    def post(self, request: Request, battle_id: uuid.UUID) -> Response:
        campaign, battle = _battle(request, battle_id, umpire=True)
        data: dict[str, Any] = {}
        if self.validates is not None:
            body = self.validates(data=request.data)
            body.is_valid(raise_exception=True)
            data = dict(body.validated_data)
        return execute(
            request,
            self.command,
            campaign_id=campaign.id,
            params={**data, "battle_id": battle.id},
            respond=_battle_answer(battle.id, status.HTTP_200_OK),
        )


def _step(
    step: str, command: type[Command[Any, Any]], validates: type[serializers.Serializer] | None
) -> type[BattleStepApi]:
    view = type(
        f"Battle{camel(step)}Api",
        (BattleStepApi,),
        {
            "__module__": __name__,
            "__doc__": inspect.cleandoc(command.__doc__ or ""),
            "step": step,
            "command": command.name,
            "validates": validates,
        },
    )
    body = _with_expected_version(f"Battle{camel(step)}Serializer", validates)
    documented: type[BattleStepApi] = extend_schema_view(
        post=extend_schema(
            request=body, parameters=[IDEMPOTENCY_KEY], responses={200: BattleDetailSerializer}
        )
    )(view)
    return documented


BattleCommitApi = _step("commit", services.BattleCommit, CommitSerializer)
BattleStartApi = _step("start", services.BattleStart, None)
BattleTurnApi = _step("turn", services.TurnAdvance, None)
BattleEndApi = _step("end", services.BattleEnd, EndSerializer)
LIFECYCLE = (BattleCommitApi, BattleStartApi, BattleTurnApi, BattleEndApi)


# --- Battle actions: one documented route per action --------------------------------------------

ACTION_DICE_HELP = (
    "The faces rolled at the table, in the order the rules use them (the dice prompt, GET on "
    'this URL, lists them), or each keyed by what it is for ({"face": 4, "for": "<unit or '
    'trooper id>"}); [] when the action rolls nothing. Leave out to have the server roll: the '
    "answer is then 202 and a job."
)


class BattleActionApi(APIView):
    """Perform a battle action. The body holds the action's parameters and, optionally, the
    dice rolled at the table (``dice``: faces in the order the rules use them); without them
    the server rolls in a resolution job (202)."""

    def get(self, request: Request, battle_id: uuid.UUID, action: str) -> Response:
        """The dice prompt: every die the action asks the table for, in order, with its purpose
        and whom it is for; parameters in the query string, ``?dice=3,5`` the faces so far."""
        campaign, battle = _battle(request, battle_id, umpire=True)
        return dice_prompt(
            request,
            actions.action_command(campaign.ruleset, action),
            campaign_id=campaign.id,
            params=query_params(request, battle_id=battle.id),
        )

    def post(self, request: Request, battle_id: uuid.UUID, action: str) -> Response:
        campaign, battle = _battle(request, battle_id, umpire=True)
        return execute(
            request,
            actions.action_command(campaign.ruleset, action),
            campaign_id=campaign.id,
            params=params_of(body_of(request), battle_id=battle.id),
            dice=dice_of(body_of(request)),
        )


@extend_schema(exclude=True)
class AnyBattleActionApi(BattleActionApi):
    """Any action by name: those registered after the routes were made (a test's ruleset),
    and names that are no action, which are refused. The schema lists each action's own
    route instead."""


def action_api(action: str) -> type[BattleActionApi]:
    """The view of one battle action: it acts as :class:`BattleActionApi` does, and is
    documented with the action's own parameters, body and dice prompt.

    An action's name is its command's (``battles.action.<name>``), which is unique: an action
    is one class with one set of parameters, in every ruleset that class lists."""
    rulesets = sorted(ruleset for ruleset, name in actions.ACTIONS if name == action)
    performer = actions.ACTIONS[(rulesets[0], action)]
    about = inspect.cleandoc(type(performer).__doc__ or "")
    body = command_body(
        f"{camel(action)}Action",
        performer.Params,
        description=about,
        from_url=("battle_id",),
        dice=ACTION_DICE_HELP,
    )
    view = type(
        f"{camel(action)}ActionApi", (BattleActionApi,), {"__module__": __name__, "__doc__": about}
    )
    summary = action.replace("_", " ").capitalize()
    return extend_schema_view(
        get=extend_schema(
            summary=f"{summary}: the dice prompt",
            description="Every die the action asks the table for, in order, with its purpose "
            "and whom it is for; the action's parameters in the query string, the faces "
            "entered so far in `dice`.",
            parameters=prompt_parameters(
                performer.Params, from_url=("battle_id",), dice=DICE_QUERY_HELP
            ),
            responses=DicePromptSerializer,
        ),
        post=extend_schema(
            summary=summary,
            description=f"{about}\n\nWith `dice` the action is resolved now (201, the events it "
            "appended); without, the server rolls in a resolution job (202, the job). "
            f"Rulesets: {', '.join(rulesets)}; in a campaign of another ruleset the answer is "
            "400 `battle.not_in_ruleset`.",
            request=body,
            parameters=[IDEMPOTENCY_KEY],
            responses={201: EventsAppendedSerializer, 202: JobSerializer},
        ),
    )(view)


# --- The log ----------------------------------------------------------------------------------

LOG_PAGE_PARAMETERS = [
    OpenApiParameter(
        "after", int, description="Only the lines of events after this sequence (the cursor)."
    ),
    OpenApiParameter(
        "limit",
        int,
        description=f"How many lines to list, 1 to {PAGE_MAX} (default {PAGE_DEFAULT}); a page "
        "never splits the lines of one event, so it may hold a few more.",
    ),
]


def log_page(request: Request, lines: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """A page of a battle's log, never splitting the lines of one event."""
    limit = int_param(request, "limit", PAGE_DEFAULT, low=1, high=PAGE_MAX)
    return event_lines_page(request, lines, limit=limit)


class BattleLogApi(APIView):
    """The battle told in order and in plain words, with the dice behind each line."""

    @extend_schema(
        parameters=LOG_PAGE_PARAMETERS, responses=sequence_page_of(BattleLogLineSerializer)
    )
    @kept_by_log_position(lambda view, ids: f"battle:{ids['battle_id']}")
    def get(self, request: Request, battle_id: uuid.UUID) -> Response:
        campaign, battle = _battle(request, battle_id)
        judge = Judge(reader_get(user=request.user, campaign_id=campaign.id))
        after = int_param(request, "after", 0, low=0, high=2**62)
        page = log_page(request, selectors.battle_log(battle.id, judge, after=after))
        page["results"] = BattleLogLineSerializer(page["results"], many=True).data
        return Response(page)
