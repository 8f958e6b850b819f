"""Folds from campaign events into the campaign read models."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from typing import Any

from campaigns.models import (
    Campaign,
    CampaignHistoryEntry,
    DiceTrayRoll,
    Invitation,
    JournalNote,
    Membership,
)
from campaigns.secrets import HIDDEN, REVEALED
from eventlog.events import VOIDED
from eventlog.projections import Projection, Row, Rows, register
from eventlog.store import StoredEvent
from rules.rulesets import definition

# Declared by the eventlog app. Handled by name so this module does not import it: a log can only
# hold such events once the type is in the catalogue, and until then the step never runs.
JOURNAL_SUMMARY_LENGTH = 80


def membership_key(campaign_id: object, user_id: object) -> str:
    return f"{campaign_id}:{user_id}"


def _history(rows: Rows, event: StoredEvent, summary: str) -> None:
    rows.put(
        CampaignHistoryEntry,
        {
            "position": event.position,
            "campaign_id": event.campaign_id,
            "sequence": event.sequence,
            "type": event.type,
            "summary": summary,
            "actor_id": event.metadata.get("actor_id"),
            "recorded_at": event.recorded_at,
        },
    )


def _member_name(row: dict[str, Any] | None, user_id: int) -> str:
    if row is not None and row.get("username"):
        return row["username"]
    return f"user {user_id}"


def _a_role(role: str) -> str:
    return f"an {role}" if role[0] in "aeiou" else f"a {role}"


def _forces_text(force_ids: list[str]) -> str:
    return f"{len(force_ids)} force" + ("" if len(force_ids) == 1 else "s")


def _option_value(value: object) -> str:
    # Sorted keys: PostgreSQL's jsonb does not keep the order an object was written in, and a
    # rebuild must produce the same text as the inline path.
    return (
        value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    )


def _dice_text(rolls: list[dict[str, Any]]) -> str:
    counts = Counter(roll["die"] for roll in rolls)
    return "+".join(f"{counts[die]}d{die}" for die in sorted(counts))


def _invitation_answered(rows: Rows, event: StoredEvent, status: Invitation.Status) -> Row:
    return rows.update(
        Invitation,
        event.payload["invitation_id"],
        status=status.value,
        user_id=event.payload.get("user_id"),
        answered_at=event.recorded_at,
    )


# The only events whose steps write the Campaign row: the row as of a point is theirs folded
# (``campaigns.as_of``), the rest of the log left aside. A step that comes to write the row for
# another event must be named here; tests/campaigns/test_campaign_as_of.py checks it.
CAMPAIGN_ROW_EVENTS = (
    "campaigns.CampaignCreated",
    "campaigns.OptionsChanged",
    "campaigns.CalendarAdvanced",
    "campaigns.DiceEpochClosed",
)


@register
class CampaignProjection(Projection):
    """The campaign, its members, the invitations to join it, and its history.

    The history lives here rather than in a projection of its own because its words need the
    members' usernames, including the username of a member at the moment they are removed.
    """

    name = "campaigns"
    version = 9
    models = (Campaign, Membership, Invitation, CampaignHistoryEntry)

    @Projection.handles("campaigns.CampaignCreated")
    def campaign_created(rows: Rows, event: StoredEvent) -> None:
        payload = event.payload
        rows.put(
            Campaign,
            {
                "id": payload["campaign_id"],
                "campaign_id": payload["campaign_id"],
                "name": payload["name"],
                "ruleset": payload["ruleset"],
                "options": payload["options"],
                "umpire_id": payload["umpire_id"],
                "seed_commitment": payload["seed_commitment"],
                "created_at": event.recorded_at,
                "day": 0,
                "branch_of": payload.get("branch_of"),
            },
        )
        username = payload.get("umpire_username", "")
        rows.put(
            Membership,
            {
                "key": membership_key(payload["campaign_id"], payload["umpire_id"]),
                "campaign_id": payload["campaign_id"],
                "user_id": payload["umpire_id"],
                "username": username,
                "role": Membership.Role.UMPIRE.value,
                "force_ids": [],
                "joined_at": event.recorded_at,
            },
        )
        creator = username or f"user {payload['umpire_id']}"
        ruleset = definition(payload["ruleset"]).label
        _history(rows, event, f"Campaign created by {creator} with the {ruleset} ruleset")

    @Projection.handles("campaigns.BranchCommandRefused")
    def branch_command_refused(rows: Rows, event: StoredEvent) -> None:
        payload = event.payload
        _history(
            rows,
            event,
            f"In this branch the rules refused {payload['command']}: {payload['message']}",
        )

    @Projection.handles("campaigns.OptionsChanged")
    def options_changed(rows: Rows, event: StoredEvent) -> None:
        payload = event.payload
        rows.update(Campaign, event.campaign_id, options=payload["options"])
        changes = ", ".join(
            f"{name} {_option_value(change['from'])} → {_option_value(change['to'])}"
            for name, change in sorted(payload["changes"].items())
        )
        _history(rows, event, f"Options changed: {changes}. Reason: {payload['reason']}")

    @Projection.handles("campaigns.MemberAdded")
    def member_added(rows: Rows, event: StoredEvent) -> None:
        payload = event.payload
        rows.put(
            Membership,
            {
                "key": membership_key(event.campaign_id, payload["user_id"]),
                "campaign_id": event.campaign_id,
                "user_id": payload["user_id"],
                "username": payload["username"],
                "role": payload["role"],
                "force_ids": payload["force_ids"],
                "joined_at": event.recorded_at,
            },
        )
        summary = f"{payload['username']} joined as {payload['role']}"
        if payload["force_ids"]:
            summary += f" with {_forces_text(payload['force_ids'])}"
        _history(rows, event, summary)

    @Projection.handles("campaigns.MemberInvited")
    def member_invited(rows: Rows, event: StoredEvent) -> None:
        payload = event.payload
        rows.put(
            Invitation,
            {
                "id": payload["invitation_id"],
                "campaign_id": event.campaign_id,
                "username": payload["username"],
                "role": payload["role"],
                "force_ids": payload["force_ids"],
                "invited_by_id": event.metadata.get("actor_id"),
                "invited_at": event.recorded_at,
                "status": Invitation.Status.PENDING.value,
                "user_id": None,
                "answered_at": None,
                # Invitations recorded before hand-overs existed have no such field.
                "replaces_user_id": payload.get("replaces_user_id"),
                "expires_at": None,
            },
        )
        summary = f"{payload['username']} invited as {payload['role']}"
        if payload["force_ids"]:
            summary += f" with {_forces_text(payload['force_ids'])}"
        if payload.get("replaces_user_id") is not None:
            replaced = rows.get(
                Membership, membership_key(event.campaign_id, payload["replaces_user_id"])
            )
            summary += (
                f" to take the place of {_member_name(replaced, payload['replaces_user_id'])}"
            )
        _history(rows, event, summary)

    @Projection.handles("campaigns.InvitationLinkIssued")
    def invitation_link_issued(rows: Rows, event: StoredEvent) -> None:
        payload = event.payload
        rows.put(
            Invitation,
            {
                "id": payload["invitation_id"],
                "campaign_id": event.campaign_id,
                # Nobody's yet: the invitee chooses a username on accepting.
                "username": "",
                "role": payload["role"],
                "force_ids": payload["force_ids"],
                "invited_by_id": event.metadata.get("actor_id"),
                "invited_at": event.recorded_at,
                "status": Invitation.Status.PENDING.value,
                "user_id": None,
                "answered_at": None,
                "replaces_user_id": None,
                "expires_at": datetime.fromisoformat(payload["expires_at"]),
            },
        )
        summary = f"Invitation link made for {_a_role(payload['role'])}"
        if payload["force_ids"]:
            summary += f" with {_forces_text(payload['force_ids'])}"
        _history(rows, event, summary)

    @Projection.handles("campaigns.InvitationAccepted")
    def invitation_accepted(rows: Rows, event: StoredEvent) -> None:
        # No history line of its own: the MemberAdded that follows says who joined.
        _invitation_answered(rows, event, Invitation.Status.ACCEPTED)

    @Projection.handles("campaigns.InvitationDeclined")
    def invitation_declined(rows: Rows, event: StoredEvent) -> None:
        invitation = _invitation_answered(rows, event, Invitation.Status.DECLINED)
        _history(rows, event, f"{invitation['username']} declined the invitation")

    @Projection.handles("campaigns.InvitationWithdrawn")
    def invitation_withdrawn(rows: Rows, event: StoredEvent) -> None:
        invitation = _invitation_answered(rows, event, Invitation.Status.WITHDRAWN)
        if invitation["username"]:
            _history(rows, event, f"Invitation to {invitation['username']} withdrawn")
        else:
            _history(rows, event, f"Invitation link for {_a_role(invitation['role'])} withdrawn")

    @Projection.handles("campaigns.MemberChanged")
    def member_changed(rows: Rows, event: StoredEvent) -> None:
        payload = event.payload
        key = membership_key(event.campaign_id, payload["user_id"])
        before = rows.get(Membership, key)
        rows.update(Membership, key, role=payload["role"], force_ids=payload["force_ids"])
        name = _member_name(before, payload["user_id"])
        if before is not None and before["role"] == payload["role"]:
            summary = f"{name} now commands {_forces_text(payload['force_ids'])}"
        else:
            summary = f"{name} is now {payload['role']}"
            if payload["force_ids"]:
                summary += f" with {_forces_text(payload['force_ids'])}"
        _history(rows, event, summary)

    @Projection.handles("campaigns.MemberRemoved")
    def member_removed(rows: Rows, event: StoredEvent) -> None:
        payload = event.payload
        key = membership_key(event.campaign_id, payload["user_id"])
        name = _member_name(rows.get(Membership, key), payload["user_id"])
        rows.delete(Membership, key)
        _history(rows, event, f"{name} removed from the campaign. Reason: {payload['reason']}")

    @Projection.handles("campaigns.NoteRecorded")
    def note_recorded(rows: Rows, event: StoredEvent) -> None:
        _history(rows, event, f"Journal: {event.payload['text'][:JOURNAL_SUMMARY_LENGTH]}")

    @Projection.handles("campaigns.DiceRolled")
    def dice_rolled(rows: Rows, event: StoredEvent) -> None:
        rolls = event.payload["rolls"]
        faces = ", ".join(str(roll["result"]) for roll in rolls)
        sources = ", ".join(sorted({roll["source"] for roll in rolls}))
        _history(
            rows,
            event,
            f"Dice: {_dice_text(rolls)} for {event.payload['purpose']}: {faces} ({sources})",
        )

    @Projection.handles("campaigns.CalendarAdvanced")
    def calendar_advanced(rows: Rows, event: StoredEvent) -> None:
        payload = event.payload
        rows.update(Campaign, event.campaign_id, day=payload["to_day"])
        _history(
            rows,
            event,
            f"Calendar advanced from day {payload['from_day']} to day {payload['to_day']}.",
        )

    @Projection.handles("campaigns.DiceEpochClosed")
    def dice_epoch_closed(rows: Rows, event: StoredEvent) -> None:
        payload = event.payload
        # The campaign's commitment is the one of the seed the server rolls with now.
        rows.update(Campaign, event.campaign_id, seed_commitment=payload["next_commitment"])
        _history(
            rows,
            event,
            f"Dice epoch {payload['epoch']} closed: its seed is revealed and its server rolls can "
            f"be verified; epoch {payload['next_epoch']} rolls from a new secret seed. "
            f"Reason: {payload['reason']}",
        )

    @Projection.handles(HIDDEN)
    def information_hidden(rows: Rows, event: StoredEvent) -> None:
        # Everyone may know that something was hidden, and when; not what.
        payload = event.payload
        if payload.get("mission_of"):
            what = "a side's mission card"
        elif payload.get("battle_id"):
            what = "a battle"
        else:
            count = payload["events"]
            what = f"{count} event" + ("" if count == 1 else "s")
        _history(rows, event, f"The umpire recorded {what} as hidden.")

    @Projection.handles(REVEALED)
    def information_revealed(rows: Rows, event: StoredEvent) -> None:
        payload = event.payload
        _history(
            rows,
            event,
            f"The umpire revealed what event #{payload['sequence']} hid. "
            f"Reason: {payload['reason']}",
        )

    @Projection.handles(VOIDED)
    def event_voided(rows: Rows, event: StoredEvent) -> None:
        payload = event.payload
        _history(rows, event, f"Event #{payload['sequence']} voided: {payload['reason']}")


@register
class JournalProjection(Projection):
    name = "journal"
    models = (JournalNote, DiceTrayRoll)

    @Projection.handles("campaigns.NoteRecorded")
    def note_recorded(rows: Rows, event: StoredEvent) -> None:
        rows.put(
            JournalNote,
            {
                "position": event.position,
                "campaign_id": event.campaign_id,
                "sequence": event.sequence,
                "text": event.payload["text"],
                "references": event.payload["references"],
                "author_id": event.metadata.get("actor_id"),
                "recorded_at": event.recorded_at,
            },
        )

    @Projection.handles("campaigns.DiceRolled")
    def dice_rolled(rows: Rows, event: StoredEvent) -> None:
        rows.put(
            DiceTrayRoll,
            {
                "position": event.position,
                "campaign_id": event.campaign_id,
                "sequence": event.sequence,
                "purpose": event.payload["purpose"],
                "rolls": event.payload["rolls"],
                "total": event.payload["total"],
                "job_id": event.job_id,
                "recorded_at": event.recorded_at,
            },
        )
