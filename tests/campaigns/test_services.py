"""Campaign membership and options services, called directly, and the rows they project."""

from __future__ import annotations

import dataclasses
import uuid

import pytest
from django.core.management import call_command

from accounts.models import ApiToken
from accounts.tokens import digest_of
from campaigns import services
from campaigns.models import Campaign, CampaignHistoryEntry, Invitation, Membership
from campaigns.visibility import reader_of
from eventlog import projections, store
from eventlog.errors import CommandError, NotFound, StateConflict
from eventlog.store import NewEvent
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db


def raise_force(campaign: Campaign) -> uuid.UUID:
    force_id = uuid.uuid4()
    store.append(campaign.id, [NewEvent("tests.ForceMustered", {}, f"force:{force_id}", 1)])
    return force_id


@pytest.fixture
def campaign(umpire):
    return campaign_for(umpire)


@pytest.fixture
def alice(make_user):
    return make_user("alice")


def membership(campaign: Campaign, user) -> Membership:
    return Membership.objects.get(campaign_id=campaign.id, user_id=user.pk)


def join(campaign: Campaign, user, role: str, force_ids=(), *, umpire):
    """The umpire invites the user, who accepts: the MemberAdded event."""
    invitation = services.member_invite(
        campaign=campaign,
        username=user.get_username(),
        role=role,
        force_ids=force_ids,
        actor=umpire,
    )
    return services.invitation_accept(invitation_id=invitation.id, actor=user)


def test_the_creator_becomes_umpire_under_their_username(campaign, umpire):
    created = next(store.read(campaign.id))
    assert created.payload["umpire_username"] == "umpire"
    umpire_membership = membership(campaign, umpire)
    assert (umpire_membership.username, umpire_membership.role) == ("umpire", "umpire")
    assert umpire_membership.force_ids == []


def test_a_campaign_created_before_usernames_were_recorded_still_folds(campaign):
    created = next(store.read(campaign.id))
    payload = {k: v for k, v in created.payload.items() if k != "umpire_username"}
    rows = projections.fold_events([dataclasses.replace(created, payload=payload)])
    (row,) = rows.all(Membership)
    assert row["username"] == ""
    (entry,) = rows.all(CampaignHistoryEntry)
    assert entry["summary"].startswith(f"Campaign created by user {created.payload['umpire_id']}")


def test_an_accepted_invitation_records_the_member_and_their_forces(campaign, umpire, alice):
    force = raise_force(campaign)
    invitation = services.member_invite(
        campaign=campaign, username=" alice ", role="player", force_ids=[force, force], actor=umpire
    )
    assert (invitation.username, invitation.force_ids) == ("alice", [str(force)])
    assert not Membership.objects.filter(user_id=alice.pk).exists()
    event = services.invitation_accept(invitation_id=invitation.id, actor=alice)
    assert event.type == "campaigns.MemberAdded"
    assert event.payload["force_ids"] == [str(force)]
    added = membership(campaign, alice)
    assert (added.username, added.role, added.force_ids) == ("alice", "player", [str(force)])
    assert Invitation.objects.get(pk=invitation.id).status == "accepted"


def test_inviting_refuses_before_appending(campaign, umpire, alice):
    before = store.last_sequence(campaign.id)
    with pytest.raises(CommandError) as refused:
        services.member_invite(
            campaign=campaign, username="alice", role="general", force_ids=[], actor=umpire
        )
    assert (refused.value.code, refused.value.field) == ("member.role", "role")
    with pytest.raises(StateConflict) as conflict:
        services.member_invite(
            campaign=campaign, username="umpire", role="observer", force_ids=[], actor=umpire
        )
    assert conflict.value.code == "member.already_member"
    assert store.last_sequence(campaign.id) == before


def test_only_the_invited_user_answers(campaign, umpire, alice, make_user):
    invitation = services.member_invite(
        campaign=campaign, username="alice", role="observer", actor=umpire
    )
    before = store.last_sequence(campaign.id)
    for actor in (umpire, make_user("mallory")):
        with pytest.raises(NotFound) as missing:
            services.invitation_accept(invitation_id=invitation.id, actor=actor)
        assert missing.value.code == "invitation.not_found"
    assert store.last_sequence(campaign.id) == before
    services.invitation_decline(invitation_id=invitation.id, actor=alice)
    with pytest.raises(StateConflict) as closed:
        services.invitation_accept(invitation_id=invitation.id, actor=alice)
    assert closed.value.code == "invitation.closed"


def test_member_change_keeps_a_players_forces_unless_told(campaign, umpire, alice):
    force = raise_force(campaign)
    join(campaign, alice, "player", [force], umpire=umpire)
    with pytest.raises(CommandError) as refused:
        services.member_change(campaign=campaign, user_id=alice.pk, role="player", actor=umpire)
    assert refused.value.code == "member.unchanged"
    services.member_change(campaign=campaign, user_id=alice.pk, role="umpire", actor=umpire)
    assert membership(campaign, alice).force_ids == []


def test_member_remove_of_a_stranger_is_not_found(campaign, umpire, alice):
    with pytest.raises(NotFound) as missing:
        services.member_remove(campaign=campaign, user_id=alice.pk, reason="x", actor=umpire)
    assert missing.value.code == "member.not_found"


def test_the_last_umpire_stays(campaign, umpire):
    before = store.last_sequence(campaign.id)
    with pytest.raises(StateConflict) as conflict:
        services.member_remove(campaign=campaign, user_id=umpire.pk, reason="x", actor=umpire)
    assert conflict.value.code == "member.last_umpire"
    with pytest.raises(StateConflict):
        services.member_change(campaign=campaign, user_id=umpire.pk, role="observer", actor=umpire)
    assert store.last_sequence(campaign.id) == before


def test_options_change_records_only_what_changed(campaign, umpire):
    event = services.options_change(
        campaign=campaign,
        changes={"replacement_die": 10, "allow_overstrength": True},
        reason="  House rule.  ",
        actor=umpire,
    )
    assert event.payload["changes"] == {"replacement_die": {"from": 8, "to": 10}}
    assert event.payload["reason"] == "House rule."
    assert Campaign.objects.get(pk=campaign.pk).options["replacement_die"] == 10


def test_options_change_needs_a_reason(campaign, umpire):
    with pytest.raises(CommandError) as refused:
        services.options_change(
            campaign=campaign, changes={"replacement_die": 10}, reason=" ", actor=umpire
        )
    assert (refused.value.code, refused.value.field) == ("options.reason", "reason")
    assert store.last_sequence(campaign.id) == 1


def test_an_api_client_is_a_member_without_a_password(campaign, umpire):
    user, token = services.api_client_create(
        campaign=campaign, name="Turn Bot", role="observer", actor=umpire
    )
    assert user.get_username() == "api-turn-bot"
    assert not user.has_usable_password()
    stored = ApiToken.objects.get(user_id=user.pk)
    assert (stored.digest, stored.read_only) == (digest_of(token), True)
    assert membership(campaign, user).role == "observer"


def test_visible_forces_by_role(campaign, umpire, alice, make_user):
    force = raise_force(campaign)
    carol = make_user("carol")
    join(campaign, alice, "player", [force], umpire=umpire)
    join(campaign, carol, "observer", umpire=umpire)
    by_name = {m.username: m for m in Membership.objects.filter(campaign_id=campaign.id)}
    readers = {name: reader_of(membership) for name, membership in by_name.items()}
    other = uuid.uuid4()
    assert (readers["alice"].sees_force(force), readers["alice"].sees_force(other)) == (True, False)
    assert readers["umpire"].sees_force(other)
    assert readers["umpire"].is_umpire
    assert readers["carol"].sees_force(other)
    assert not readers["carol"].is_umpire


def test_rebuild_equals_inline_after_membership_and_options_events(
    campaign, umpire, alice, make_user
):
    force, other_force = raise_force(campaign), raise_force(campaign)
    carol = make_user("carol")
    join(campaign, alice, "player", [force], umpire=umpire)
    join(campaign, carol, "umpire", umpire=umpire)
    withdrawn = services.member_invite(
        campaign=campaign, username="ghost", role="observer", actor=umpire
    )
    services.invitation_withdraw(campaign=campaign, invitation_id=withdrawn.id, actor=umpire)
    declined = services.member_invite(
        campaign=campaign, username="dora", role="observer", actor=umpire
    )
    services.invitation_decline(invitation_id=declined.id, actor=make_user("dora"))
    services.member_change(
        campaign=campaign, user_id=alice.pk, force_ids=[force, other_force], actor=umpire
    )
    services.options_change(
        campaign=campaign,
        changes={"quality_threshold_green_regular": 6, "repair_days": {"disabled": 4}},
        reason="Harder war.",
        actor=umpire,
    )
    services.member_remove(
        campaign=campaign, user_id=umpire.pk, reason="Handed over.", actor=umpire
    )
    services.note_record(campaign=campaign, text="Day 1", actor=umpire)
    services.dice_enter(campaign=campaign, die=6, results=[2], purpose="rain", actor=umpire)
    inline = projections.dump_rows()
    # Four invitations (two accepted, one withdrawn, one declined) add six entries.
    assert len(inline["campaigns.campaignhistoryentry"]) == 14
    assert len(inline["campaigns.membership"]) == 2
    assert sorted(i["status"] for i in inline["campaigns.invitation"]) == [
        "accepted",
        "accepted",
        "declined",
        "withdrawn",
    ]

    call_command("rebuild_projections", "--no-progress")

    assert projections.dump_rows() == inline
    folded = projections.fold_as_of(campaign.id, None)
    for model in projections.iter_models():
        assert folded.all(model) == inline[model._meta.label_lower]
