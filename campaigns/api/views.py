"""Campaigns over HTTP: create and list campaigns, read one (as of any point), their options and
history, and the dice tray."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns import as_of as as_of_reads
from campaigns import selectors, services
from campaigns.calendar import CalendarAdvance
from campaigns.common import MAX_REASON_LENGTH
from campaigns.dice_tray import RollDice, table_dice_in
from campaigns.models import Campaign, CampaignHistoryEntry, JournalNote, Membership
from campaigns.visibility import Judge, reader_get, reader_of
from eventlog import store
from eventlog.api.commands import dice_prompt, execute
from eventlog.api.pagination import (
    OFFSET_PAGE_PARAMETERS,
    SEQUENCE_PAGE_PARAMETERS,
    offset_page,
    offset_page_of,
    sequence_page,
    sequence_page_of,
)
from eventlog.api.serializers import (
    DicePromptSerializer,
    EventOutputSerializer,
    JobSerializer,
    event_to_json,
)
from eventlog.caching import pin_answer
from eventlog.command_input import as_of_sequence
from eventlog.commands import Outcome
from eventlog.errors import CommandError
from eventlog.projections import Row
from rules import rulesets
from rules.options import options_schema


class CampaignOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    ruleset = serializers.CharField()
    options = serializers.JSONField()
    umpire_id = serializers.IntegerField()
    seed_commitment = serializers.CharField()
    created_at = serializers.DateTimeField()
    day = serializers.IntegerField()
    branch_of = serializers.JSONField(
        allow_null=True,
        help_text="For a branch (what-if) of another campaign: the original's id, the point it "
        "branched at (sequence and words), the original's last event then, the options it "
        "changes and the umpire who made it. Null for a campaign of its own.",
    )
    role = serializers.CharField(required=False)
    journal_notes = serializers.IntegerField(required=False)
    as_of = serializers.IntegerField(required=False)


class CampaignInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    ruleset = serializers.CharField(
        max_length=20, default="sg2", help_text="The code of a ruleset listed by /rulesets/."
    )
    options = serializers.DictField(required=False, default=dict)

    def validate_ruleset(self, value: str) -> str:
        # Looked up when asked, not when the module loads: rulesets can be registered later.
        if value not in {d.code for d in rulesets.definitions()}:
            raise serializers.ValidationError(f'"{value}" is not a valid choice.', "invalid_choice")
        return value


def _campaign_json(row: Mapping[str, Any], role: str | None = None) -> dict:
    return CampaignOutputSerializer(
        {
            key: row.get(key)
            for key in (
                "id",
                "name",
                "ruleset",
                "options",
                "umpire_id",
                "seed_commitment",
                "created_at",
                "day",
                "branch_of",
            )
        }
        | ({"role": role} if role else {})
    ).data


def parse_as_of(request: Request) -> int | None:
    return as_of_sequence(request.query_params.get("as_of"))


class CampaignListApi(APIView):
    """The campaigns you belong to; create one and become its umpire."""

    @extend_schema(
        parameters=OFFSET_PAGE_PARAMETERS,
        responses=offset_page_of(CampaignOutputSerializer),
    )
    def get(self, request: Request) -> Response:
        user = request.user
        assert user.is_authenticated  # IsAuthenticated, the API's default permission
        roles = dict(Membership.objects.filter(user_id=user.pk).values_list("campaign_id", "role"))
        page = offset_page(request, selectors.campaigns_for_user(user).values())
        page["results"] = [_campaign_json(row, roles.get(row["id"])) for row in page["results"]]
        return Response(page)

    @extend_schema(request=CampaignInputSerializer, responses={201: CampaignOutputSerializer})
    def post(self, request: Request) -> Response:
        body = CampaignInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            services.CampaignCreate.name,
            campaign_id=services.new_campaign_id(
                request.user.pk, request.headers.get("Idempotency-Key")
            ),
            params=body.validated_data,
            respond=_created,
        )


def _created(outcome: Outcome) -> tuple[int, Any]:
    row = Campaign.objects.filter(pk=outcome.result).values().get()
    return status.HTTP_201_CREATED, _campaign_json(row, Membership.Role.UMPIRE.value)


class CampaignDetailApi(APIView):
    """One campaign, now or as it stood after a given event (``?as_of=<sequence>``)."""

    @extend_schema(
        parameters=[OpenApiParameter("as_of", int, description="Sequence number of an event.")],
        responses=CampaignOutputSerializer,
    )
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        membership = selectors.membership_get(user=request.user, campaign_id=campaign_id)
        as_of = parse_as_of(request)
        pin_answer(request, campaign_id, as_of)
        judge = Judge(reader_of(membership), at=as_of)
        row: Mapping[str, Any] | None
        if as_of is None:
            row = Campaign.objects.filter(pk=campaign_id).values().get()
        else:
            row = as_of_reads.campaign_as_of(campaign_id, as_of)
            if row is None:
                raise CommandError(
                    "campaign.not_yet_created",
                    "The campaign did not exist yet at that point.",
                    field="as_of",
                )
        data = dict(_campaign_json(row, membership.role))
        # The notes this member may read: a hidden note is not counted for those it is hidden from.
        data["journal_notes"] = as_of_reads.journal_notes_seen(campaign_id, judge)
        data["as_of"] = (
            min(as_of, store.last_sequence(campaign_id))
            if as_of is not None
            else (store.last_sequence(campaign_id))
        )
        return Response(data)


class HiddenSerializer(serializers.Serializer):
    force_ids = serializers.ListField(
        child=serializers.UUIDField(),
        required=False,
        default=list,
        help_text="The forces whose players may read it; none: the umpires only.",
    )


class NoteSerializer(serializers.Serializer):
    sequence = serializers.IntegerField(read_only=True)
    text = serializers.CharField(max_length=10_000)
    references = serializers.ListField(child=serializers.DictField(), required=False, default=list)
    hidden = HiddenSerializer(
        required=False,
        allow_null=True,
        default=None,
        write_only=True,
        help_text="Record the note as hidden until the umpire reveals it.",
    )
    author_id = serializers.IntegerField(read_only=True, allow_null=True)
    recorded_at = serializers.DateTimeField(read_only=True)


class CampaignJournalApi(APIView):
    """The umpire's campaign journal: a note recorded as ``hidden`` is read by the umpires (and
    the players of the forces it names, and observers if the options say so) until the umpire
    reveals it (``POST /campaigns/{id}/reveals/``)."""

    @extend_schema(parameters=SEQUENCE_PAGE_PARAMETERS, responses=sequence_page_of(NoteSerializer))
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        judge = Judge(reader_get(user=request.user, campaign_id=campaign_id))
        notes = JournalNote.objects.filter(campaign_id=campaign_id).order_by("sequence")

        def read(after: int, count: int) -> list[JournalNote]:
            return _shown_after(notes, after, count, judge)

        page = sequence_page(request, read, sequence_of=lambda note: note.sequence)
        page["results"] = NoteSerializer(page["results"], many=True).data
        return Response(page)

    @extend_schema(request=NoteSerializer, responses={201: NoteSerializer})
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        body = NoteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            services.NoteRecord.name,
            campaign_id=campaign_id,
            params=body.validated_data,
            respond=_note_recorded,
        )


def _note_recorded(outcome: Outcome) -> tuple[int, Any]:
    # A hidden note's event follows the hiding recorded first.
    note = JournalNote.objects.get(pk=outcome.events[-1].position)
    return status.HTTP_201_CREATED, NoteSerializer(note).data


class DiceInputSerializer(serializers.Serializer):
    die = serializers.IntegerField(help_text="4, 6, 8, 10 or 12.")
    count = serializers.IntegerField(required=False, help_text="How many dice the server throws.")
    purpose = serializers.CharField(max_length=200)
    results = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        help_text="Faces thrown at the table; leave out to have the server throw.",
    )


class CampaignDiceApi(APIView):
    """The umpire's dice tray: the server throws (a job, 202) or table dice are entered (201)."""

    @extend_schema(
        parameters=[
            OpenApiParameter("die", int, enum=[4, 6, 8, 10, 12], required=True),
            OpenApiParameter("count", int, description="How many dice (default 1)."),
            OpenApiParameter("purpose", str, required=True),
            OpenApiParameter("dice", str, description="The faces so far, e.g. 3,5."),
        ],
        responses=DicePromptSerializer,
    )
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        """The dice prompt for ``?die=6&count=3&purpose=...``: the dice the tray would throw, in
        order, each with its purpose (``for`` is none: the tray's dice are the umpire's own);
        ``?dice=3,5`` follows the faces so far."""
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        query = request.query_params
        params = {
            "die": query.get("die", ""),
            "count": query.get("count", "1"),
            "purpose": query.get("purpose", ""),
        }
        return dice_prompt(request, RollDice.name, campaign_id=campaign_id, params=params)

    @extend_schema(
        request=DiceInputSerializer, responses={201: EventOutputSerializer, 202: JobSerializer}
    )
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        body = DiceInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        results = data.get("results")
        count = len(results) if results is not None else data.get("count", 1)
        with table_dice_in("results"):
            return execute(
                request,
                RollDice.name,
                campaign_id=campaign_id,
                params={"die": data["die"], "count": count, "purpose": data["purpose"]},
                dice=results,
                respond=_thrown,
            )


def _thrown(outcome: Outcome) -> tuple[int, Any]:
    return status.HTTP_201_CREATED, event_to_json(outcome.events[0])


class OptionsOutputSerializer(serializers.Serializer):
    ruleset = serializers.CharField()
    options = serializers.JSONField()
    schema = serializers.JSONField(help_text="JSON Schema of the ruleset's options.")


class OptionsChangeSerializer(serializers.Serializer):
    changes = serializers.DictField(help_text="The options to change and their new values.")
    reason = serializers.CharField(max_length=MAX_REASON_LENGTH)


def _options_json(campaign: Campaign) -> dict:
    return OptionsOutputSerializer(
        {
            "ruleset": campaign.ruleset,
            "options": campaign.options,
            "schema": options_schema(campaign.ruleset),
        }
    ).data


class CampaignOptionsApi(APIView):
    """The campaign's options: the choices the rules leave to the umpire. Changes are recorded
    in the log with their reason."""

    @extend_schema(responses=OptionsOutputSerializer)
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        campaign = selectors.campaign_get(user=request.user, campaign_id=campaign_id)
        return Response(_options_json(campaign))

    @extend_schema(request=OptionsChangeSerializer, responses=OptionsOutputSerializer)
    def patch(self, request: Request, campaign_id: uuid.UUID) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        body = OptionsChangeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            services.OptionsChange.name,
            campaign_id=campaign_id,
            params=body.validated_data,
            respond=lambda outcome: (
                status.HTTP_200_OK,
                _options_json(Campaign.objects.get(pk=campaign_id)),
            ),
        )


class RulesetSerializer(serializers.Serializer):
    name = serializers.CharField()
    # The serializer's metaclass takes declared fields out of the class, so this field does not
    # replace ``Field.label`` as the stubs take it to.
    label = serializers.CharField()  # type: ignore[assignment]
    options_schema = serializers.JSONField()


class RulesetListApi(APIView):
    """The rulesets a campaign can be played under, with the JSON Schema of their options."""

    permission_classes = [AllowAny]

    @extend_schema(responses=RulesetSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(
            RulesetSerializer(
                [
                    {"name": r.code, "label": r.label, "options_schema": options_schema(r)}
                    for r in rulesets.definitions()
                ],
                many=True,
            ).data
        )


class HistoryEntrySerializer(serializers.Serializer):
    sequence = serializers.IntegerField()
    type = serializers.CharField()
    summary = serializers.CharField()
    actor_id = serializers.IntegerField(allow_null=True)
    recorded_at = serializers.DateTimeField()


class CampaignHistoryApi(APIView):
    """What happened in the campaign, in plain words: its creation, options, members, journal
    and dice. ``?as_of=<sequence>`` shows the history as it stood after that event."""

    @extend_schema(
        parameters=[
            OpenApiParameter("as_of", int, description="Sequence number of an event."),
            *SEQUENCE_PAGE_PARAMETERS,
        ],
        responses=sequence_page_of(HistoryEntrySerializer),
    )
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        reader = reader_get(user=request.user, campaign_id=campaign_id)
        as_of = parse_as_of(request)
        pin_answer(request, campaign_id, as_of)
        entries: Iterable[CampaignHistoryEntry | Row]
        if as_of is None:
            entries = selectors.history_list(campaign_id=campaign_id)
        else:
            entries = as_of_reads.history_as_of(campaign_id, as_of)
        # A hidden note's line is left out for those it is hidden from, until its reveal.
        judge = Judge(reader, at=as_of)

        def read(after: int, count: int) -> list[CampaignHistoryEntry | Row]:
            return _shown_after(entries, after, count, judge)

        page = sequence_page(request, read, sequence_of=_sequence_of)
        page["results"] = HistoryEntrySerializer(page["results"], many=True).data
        return Response(page)


Line = TypeVar("Line", JournalNote, CampaignHistoryEntry | Row)


def _shown_after(lines: Iterable[Line], after: int, count: int, judge: Judge) -> list[Line]:
    """Up to ``count`` lines past the sequence ``after`` that the reader sees. A page reads
    about a page of the lines, a chunk at a time past hidden ones: never the whole journal or
    history, which grows with the log."""
    shown: list[Line] = []
    while len(shown) < count:
        chunk = _lines_after(lines, after, 2 * count)
        shown.extend(line for line in chunk if judge.sees_row(_sequence_of(line)))
        if len(chunk) < 2 * count:
            break
        after = _sequence_of(chunk[-1])
    return shown[:count]


def _lines_after(lines: Iterable[Line], after: int, count: int) -> list[Line]:
    """Up to ``count`` lines past the sequence ``after``, from the database when the lines are
    a query."""
    if isinstance(lines, QuerySet):
        return list(lines.filter(sequence__gt=after)[:count])
    return [line for line in lines if _sequence_of(line) > after][:count]


def _sequence_of(line: JournalNote | CampaignHistoryEntry | Row) -> int:
    return line["sequence"] if isinstance(line, dict) else line.sequence


class CalendarSerializer(serializers.Serializer):
    to_day = serializers.IntegerField(required=False, min_value=0)
    days = serializers.IntegerField(required=False, min_value=1)


class CampaignDaySerializer(serializers.Serializer):
    day = serializers.IntegerField(help_text="The campaign's day (0: the day it began).")


class CalendarAdvancedSerializer(CampaignDaySerializer):
    events = EventOutputSerializer(
        many=True,
        help_text="What fell due on the way, in order: returns from hospital, rest, repairs, "
        "arrivals, and the day's change itself.",
    )


class CampaignCalendarApi(APIView):
    """The campaign day; umpires move it forward by ``days`` or ``to_day``, and every return
    from hospital, day of rest, repair and arrival that falls due is recorded."""

    @extend_schema(responses=CampaignDaySerializer)
    def get(self, request: Request, campaign_id: uuid.UUID) -> Response:
        selectors.membership_get(user=request.user, campaign_id=campaign_id)
        return Response({"day": Campaign.objects.get(pk=campaign_id).day})

    @extend_schema(request=CalendarSerializer, responses={201: CalendarAdvancedSerializer})
    def post(self, request: Request, campaign_id: uuid.UUID) -> Response:
        selectors.require_umpire(user=request.user, campaign_id=campaign_id)
        body = CalendarSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return execute(
            request,
            CalendarAdvance.name,
            campaign_id=campaign_id,
            params=body.validated_data,
            respond=lambda outcome: (
                status.HTTP_201_CREATED,
                {
                    "day": Campaign.objects.get(pk=campaign_id).day,
                    "events": [event_to_json(event) for event in outcome.events],
                },
            ),
        )
