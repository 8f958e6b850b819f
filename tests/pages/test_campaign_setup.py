"""A campaign's set-up on the pages, as people use them: creating it with its options, loading its
rosters, its members and joining with an invitation link. Each form's success, its refusal shown
beside the field with the service's message, and nothing written when refused."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from campaigns.models import Campaign, Invitation, Membership
from eventlog import store
from pages.setup_forms import OptionsForm
from rosters.models import Force
from rosters.services import force_import_text
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BLUE = EXAMPLES / "sg2-scenario-1-blue.yaml"
RED = EXAMPLES / "sg2-scenario-1-red.yaml"
PASSPHRASE = "three tired horses graze"


def field_error(page: str, field: str) -> str:
    """The message shown beside a field, or "" if none is."""
    found = re.search(rf'class="field-error" data-field="{re.escape(field)}">([^<]*)<', page)
    return html.unescape(found.group(1)) if found else ""


def text_of(response: Any) -> str:
    return html.unescape(response.content.decode())


def posted_options(ruleset: str, **changes: Any) -> dict[str, Any]:
    """What the options form posts when nothing is touched, with ``changes`` made (by input
    name without the ``options.`` prefix)."""
    form = OptionsForm(ruleset)
    data: dict[str, Any] = {}
    for name, value in {**form.initial, **{f"options.{k}": v for k, v in changes.items()}}.items():
        if value is True:
            data[name] = "on"
        elif value is False:
            continue  # an unticked box is not posted
        elif value is None:
            data[name] = ""
        else:
            data[name] = value
    return data


@pytest.fixture
def browser(umpire) -> Client:
    client = Client()
    client.force_login(umpire)
    return client


@pytest.fixture
def campaign(umpire):
    return campaign_for(umpire)


@pytest.fixture
def blue(campaign, umpire):
    return force_import_text(
        campaign=campaign, text=BLUE.read_text(), source=BLUE.name, actor=umpire
    )


# --- Creating a campaign --------------------------------------------------------------------------


def test_the_new_campaign_form_shows_every_option_with_the_books_default_and_its_help(browser):
    page = text_of(browser.get("/campaigns/new/"))
    assert re.search(
        r'<select name="options.replacement_die"[^>]*>.*?<option value="8" selected>',
        page,
        re.S,
    )
    assert "The book's default: 8." in page
    # A setting of Muster's own, which neither book has, says whose default it is.
    assert "Muster's default: outline." in page
    # The help is the option's description with its page in the book.
    assert (
        'id="options.replacement_die-help">Die rolled per platoon for replacements: d6 few ... '
        "d12 plenty (SG2 P.60 REPLACEMENT TROOPS)</p>" in page
    )
    assert 'aria-describedby="options.replacement_die-help"' in page
    # A group of options (repair times) is a fieldset of its own.
    assert 'name="options.repair_days.immobilised"' in page
    # An option kept for a procedure the service does not run yet says so.
    assert "Kept for a procedure this version does not run yet (sg2.fire_combat)" in page


def test_choosing_another_ruleset_shows_its_options(browser):
    page = text_of(browser.get("/campaigns/new/?ruleset=fad"))
    assert 'name="options.move_variable"' in page
    assert 'name="options.replacement_die"' not in page
    assert '<input type="hidden" name="ruleset" value="fad"' in page


def test_an_unknown_ruleset_is_said_beside_the_choice(browser):
    page = text_of(browser.get("/campaigns/new/?ruleset=chess"))
    assert field_error(page, "ruleset").startswith("Unknown ruleset 'chess'")


def test_creating_a_campaign_makes_you_its_umpire_with_the_options_chosen(browser, umpire):
    response = browser.post(
        "/campaigns/new/",
        {"name": "Kessler Ridge", "ruleset": "sg2", **posted_options("sg2", quality_points_win=4)},
    )
    campaign = Campaign.objects.get(name="Kessler Ridge")
    assert response.status_code == 302
    assert response["Location"] == f"/campaigns/{campaign.id}/rosters/"
    assert campaign.options["quality_points_win"] == 4
    assert campaign.options["replacement_die"] == 8
    assert campaign.options["repair_days"]["immobilised"] == 1
    member = Membership.objects.get(campaign_id=campaign.id, user_id=umpire.pk)
    assert member.role == "umpire"
    page = text_of(browser.get(response["Location"]))
    assert "Kessler Ridge is created and you are its umpire" in page


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        (
            {"name": "Kessler Ridge", **posted_options("sg2", quality_points_win=-1)},
            "options.quality_points_win",
            "-1 is outside the allowed range 0 or more.",
        ),
        (
            {"name": "Kessler Ridge", **posted_options("sg2", **{"repair_days.immobilised": -2})},
            "options.repair_days.immobilised",
            "-2 is outside the allowed range 0 or more.",
        ),
        ({"name": "  ", **posted_options("sg2")}, "name", "A campaign needs a name."),
    ],
)
def test_a_refused_campaign_is_shown_beside_its_field_and_not_created(
    browser, data, field, message
):
    response = browser.post("/campaigns/new/", {"ruleset": "sg2", **data})
    page = text_of(response)
    assert response.status_code == 200
    assert field_error(page, field) == message
    assert not Campaign.objects.exists()
    # The form keeps what was posted, and opens the options when one of them was refused.
    assert 'value="Kessler Ridge"' in page or field == "name"
    if field.startswith("options."):
        assert '<details class="options" open>' in page


def test_an_unknown_ruleset_posted_is_refused_by_the_service(browser):
    response = browser.post("/campaigns/new/", {"name": "Chess", "ruleset": "chess"})
    assert field_error(text_of(response), "ruleset").startswith("Unknown ruleset 'chess'")
    assert not Campaign.objects.exists()


# --- Changing the options -------------------------------------------------------------------------


def test_the_umpire_changes_an_option_saying_why(browser, campaign):
    response = browser.post(
        f"/campaigns/{campaign.id}/options/",
        {**posted_options("sg2", replacement_die=6), "reason": "A harsher war"},
        follow=True,
    )
    campaign.refresh_from_db()
    assert campaign.options["replacement_die"] == 6
    assert "Options changed: replacement die from 8 to 6." in text_of(response)
    assert re.search(
        r'<select name="options.replacement_die"[^>]*>.*?<option value="6" selected>',
        text_of(response),
        re.S,
    )


@pytest.mark.parametrize(
    ("changes", "reason", "field", "message"),
    [
        ({"replacement_die": 6}, "", "reason", "Say why."),
        ({}, "No change", "form", "These options already have those values: nothing to change."),
        (
            {"quality_threshold_green_regular": 0},
            "Typo",
            "options.quality_threshold_green_regular",
            "0 is outside the allowed range 1 or more.",
        ),
    ],
)
def test_a_refused_change_of_options_is_shown_and_changes_nothing(
    browser, campaign, changes, reason, field, message
):
    before = store.last_sequence(campaign.id)
    response = browser.post(
        f"/campaigns/{campaign.id}/options/",
        {**posted_options("sg2", **changes), "reason": reason},
    )
    page = text_of(response)
    if field == "form":
        assert field_error(page, "options") == message
    else:
        assert field_error(page, field) == message
    assert store.last_sequence(campaign.id) == before
    campaign.refresh_from_db()
    assert campaign.options["replacement_die"] == 8


def test_only_the_umpire_sees_the_set_up_pages(campaign, make_user, umpire, blue):
    from campaigns.services import invitation_accept, member_invite

    player = make_user("pat")
    invitation = member_invite(
        campaign=campaign, username="pat", role="player", force_ids=[blue.id], actor=umpire
    )
    invitation_accept(invitation_id=invitation.id, actor=player)
    client = Client()
    client.force_login(player)
    for page in ("options", "rosters", "members"):
        assert client.get(f"/campaigns/{campaign.id}/{page}/").status_code == 403
    stranger = Client()
    stranger.force_login(make_user("someone"))
    assert stranger.get(f"/campaigns/{campaign.id}/rosters/").status_code == 404


# --- Rosters --------------------------------------------------------------------------------------


def test_uploading_both_sides_rosters_loads_their_forces(browser, campaign):
    for path in (BLUE, RED):
        with path.open("rb") as roster:
            response = browser.post(
                f"/campaigns/{campaign.id}/rosters/", {"roster": roster}, follow=True
            )
        assert response.status_code == 200
    forces = list(Force.objects.filter(campaign_id=campaign.id).order_by("raised_sequence"))
    assert [f.side for f in forces] == ["Blue", "Red"]
    page = text_of(response)
    assert f"{forces[1].name} (Red) is loaded from {RED.name}." in page
    assert all(f.name in page for f in forces)


def test_a_roster_with_problems_lists_each_with_its_line_and_field_and_loads_nothing(
    browser, campaign, tmp_path
):
    broken = BLUE.read_text().replace("quality: regular", "quality: legendary", 1)
    assert broken != BLUE.read_text()
    line = next(n for n, text in enumerate(broken.splitlines(), 1) if "legendary" in text)
    upload = tmp_path / "blue.yaml"
    upload.write_text(broken)
    before = store.last_sequence(campaign.id)
    with upload.open("rb") as roster:
        response = browser.post(f"/campaigns/{campaign.id}/rosters/", {"roster": roster})
    page = text_of(response)
    assert field_error(page, "roster").startswith("The roster file has 1 problem; the first:")
    problems = re.findall(r"<li>([^<]*)</li>", page.split('class="problems"')[1])
    assert len(problems) == 1
    assert problems[0].startswith(f"Line {line}, units[")
    assert ".quality: " in problems[0]
    assert "legendary" in problems[0]
    assert not Force.objects.filter(campaign_id=campaign.id).exists()
    assert store.last_sequence(campaign.id) == before


def test_a_file_that_is_not_text_is_refused(browser, campaign, tmp_path):
    upload = tmp_path / "roster.yaml"
    upload.write_bytes(b"\xff\xfe\x00garbage")
    with upload.open("rb") as roster:
        page = text_of(browser.post(f"/campaigns/{campaign.id}/rosters/", {"roster": roster}))
    assert field_error(page, "roster") == "The file is not text (UTF-8): save it as YAML or JSON."
    assert not Force.objects.exists()


# --- Invitation links, members --------------------------------------------------------------------


def make_link(browser: Client, campaign: Campaign, **data: Any) -> str:
    response = browser.post(f"/campaigns/{campaign.id}/invitation-links/", data)
    assert response.status_code == 200, response
    found = re.search(
        r'id="link-url" type="text" readonly value="([^"]+)"', response.content.decode()
    )
    assert found is not None
    return found.group(1)


def test_an_invited_player_makes_an_account_and_joins_with_the_force_chosen(
    browser, campaign, blue
):
    url = make_link(browser, campaign, role="player", force=blue.id, expires_in_days=3)
    path = url.removeprefix("http://testserver")
    invitee = Client()
    form = text_of(invitee.get(path))
    assert f"join as a player commanding {blue.name}" in form
    response = invitee.post(
        path,
        {"username": "sam", "password": PASSPHRASE, "password_again": PASSPHRASE},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == f"/campaigns/{campaign.id}/"
    assert "Welcome, sam: you joined as player." in text_of(response)
    sam = get_user_model().objects.get(username="sam")
    member = Membership.objects.get(campaign_id=campaign.id, user_id=sam.pk)
    assert (member.role, member.force_ids) == ("player", [str(blue.id)])
    # Logged in as sam: the campaign list is theirs.
    assert "Kessler Ridge" in text_of(invitee.get("/campaigns/"))
    # The umpire sees who took the link.
    members = text_of(browser.get(f"/campaigns/{campaign.id}/members/"))
    assert "Accepted by sam" in members
    # Once only.
    again = Client().get(path)
    assert again.status_code == 410
    assert "used already" in text_of(again)


def test_an_observer_link(browser, campaign):
    url = make_link(browser, campaign, role="observer", expires_in_days=7)
    response = Client().post(
        url.removeprefix("http://testserver"),
        {"username": "olly", "password": PASSPHRASE, "password_again": PASSPHRASE},
    )
    assert response.status_code == 302
    olly = get_user_model().objects.get(username="olly")
    assert Membership.objects.get(campaign_id=campaign.id, user_id=olly.pk).role == "observer"


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        (
            {"role": "player", "expires_in_days": 7},
            "force_ids",
            "A player commands at least one force.",
        ),
        (
            {"role": "observer", "expires_in_days": 40},
            "expires_in_days",
            "A link works for 1 to 30 days.",
        ),
    ],
)
def test_a_refused_link_is_shown_beside_its_field_and_makes_none(
    browser, campaign, data, field, message
):
    before = store.last_sequence(campaign.id)
    response = browser.post(f"/campaigns/{campaign.id}/invitation-links/", data, follow=True)
    assert field_error(text_of(response), field) == message
    assert store.last_sequence(campaign.id) == before
    assert not Invitation.objects.exists()


@pytest.mark.parametrize(
    ("username", "password", "again", "field", "message"),
    [
        ("umpire", PASSPHRASE, PASSPHRASE, "username", "That username is taken: choose another."),
        (
            "sam",
            "short",
            "short",
            "password",
            "This password is too short. It must contain at least 12 characters.",
        ),
        ("sam", PASSPHRASE, PASSPHRASE + "!", "password_again", "The two passwords differ."),
        ("", PASSPHRASE, PASSPHRASE, "username", "Choose a username."),
    ],
)
def test_a_refused_account_is_shown_beside_its_field_and_nothing_is_made(
    browser, campaign, username, password, again, field, message
):
    path = make_link(browser, campaign, role="observer", expires_in_days=7)
    path = path.removeprefix("http://testserver")
    users, before = get_user_model().objects.count(), store.last_sequence(campaign.id)
    response = Client().post(
        path, {"username": username, "password": password, "password_again": again}
    )
    page = text_of(response)
    assert field_error(page, field) == message
    assert f'value="{username}"' in page or not username
    assert get_user_model().objects.count() == users
    assert store.last_sequence(campaign.id) == before


def test_an_expired_link_says_so(browser, campaign, monkeypatch):
    path = make_link(browser, campaign, role="observer", expires_in_days=1)
    later = timezone.now() + timedelta(days=1, minutes=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    response = Client().get(path.removeprefix("http://testserver"))
    assert response.status_code == 410
    assert "This invitation link has expired. Ask the umpire for a new one." in text_of(response)
    members = text_of(browser.get(f"/campaigns/{campaign.id}/members/"))
    assert "Expired on" in members


def test_a_link_with_a_wrong_secret_is_not_found(browser, campaign):
    path = make_link(browser, campaign, role="observer", expires_in_days=1)
    assert Client().get(path[: path.rstrip("/").rindex("/")] + "/guessed/").status_code == 404


def test_a_withdrawn_link_no_longer_works(browser, campaign):
    path = make_link(browser, campaign, role="observer", expires_in_days=1)
    invitation = Invitation.objects.get()
    response = browser.post(
        f"/campaigns/{campaign.id}/invitations/{invitation.id}/withdraw/", follow=True
    )
    assert "The invitation is withdrawn: it no longer works." in text_of(response)
    assert Client().get(path.removeprefix("http://testserver")).status_code == 410


def test_the_umpire_changes_a_members_role(browser, campaign, blue):
    path = make_link(browser, campaign, role="player", force=blue.id, expires_in_days=1)
    Client().post(
        path.removeprefix("http://testserver"),
        {"username": "sam", "password": PASSPHRASE, "password_again": PASSPHRASE},
    )
    sam = get_user_model().objects.get(username="sam")
    response = browser.post(
        f"/campaigns/{campaign.id}/members/{sam.pk}/",
        {"role": "observer", "force": ""},
        follow=True,
    )
    assert "sam is now observer." in text_of(response)
    member = Membership.objects.get(campaign_id=campaign.id, user_id=sam.pk)
    assert (member.role, member.force_ids) == ("observer", [])


def test_an_observer_given_a_force_is_refused_beside_the_force(browser, campaign, blue):
    path = make_link(browser, campaign, role="observer", expires_in_days=1)
    Client().post(
        path.removeprefix("http://testserver"),
        {"username": "olly", "password": PASSPHRASE, "password_again": PASSPHRASE},
    )
    olly = get_user_model().objects.get(username="olly")
    before = store.last_sequence(campaign.id)
    response = browser.post(
        f"/campaigns/{campaign.id}/members/{olly.pk}/",
        {"role": "observer", "force": blue.id},
        follow=True,
    )
    assert field_error(text_of(response), "force_ids") == (
        "Only players command forces, not an observer."
    )
    assert store.last_sequence(campaign.id) == before


def test_the_last_umpire_cannot_be_removed(browser, campaign, umpire):
    before = store.last_sequence(campaign.id)
    response = browser.post(
        f"/campaigns/{campaign.id}/members/{umpire.pk}/remove/", {"reason": "Tired"}, follow=True
    )
    assert field_error(text_of(response), "form") == (
        "A campaign needs an umpire: make someone else umpire first."
    )
    assert store.last_sequence(campaign.id) == before
    assert Membership.objects.filter(campaign_id=campaign.id, user_id=umpire.pk).exists()


def test_removing_a_member_saying_why(browser, campaign):
    path = make_link(browser, campaign, role="observer", expires_in_days=1)
    Client().post(
        path.removeprefix("http://testserver"),
        {"username": "olly", "password": PASSPHRASE, "password_again": PASSPHRASE},
    )
    olly = get_user_model().objects.get(username="olly")
    refused = browser.post(
        f"/campaigns/{campaign.id}/members/{olly.pk}/remove/", {"reason": ""}, follow=True
    )
    assert field_error(text_of(refused), "reason") == "Say why."
    assert Membership.objects.filter(campaign_id=campaign.id, user_id=olly.pk).exists()
    response = browser.post(
        f"/campaigns/{campaign.id}/members/{olly.pk}/remove/", {"reason": "Moved away"}, follow=True
    )
    assert "olly is removed." in text_of(response)
    assert not Membership.objects.filter(campaign_id=campaign.id, user_id=olly.pk).exists()


def test_forms_carry_a_csrf_token(campaign):
    from campaigns.models import Membership as M

    umpire = get_user_model().objects.get(pk=M.objects.get(campaign_id=campaign.id).user_id)
    client = Client(enforce_csrf_checks=True)
    client.force_login(umpire)
    page = client.get(f"/campaigns/{campaign.id}/members/").content.decode()
    assert page.count('name="csrfmiddlewaretoken"') >= 2
    refused = client.post(f"/campaigns/{campaign.id}/invitation-links/", {"role": "observer"})
    assert refused.status_code == 403
    assert not Invitation.objects.exists()


def test_a_used_link_cannot_be_withdrawn(browser, campaign):
    path = make_link(browser, campaign, role="observer", expires_in_days=1)
    Client().post(
        path.removeprefix("http://testserver"),
        {"username": "olly", "password": PASSPHRASE, "password_again": PASSPHRASE},
    )
    invitation = Invitation.objects.get()
    before = store.last_sequence(campaign.id)
    response = browser.post(
        f"/campaigns/{campaign.id}/invitations/{invitation.id}/withdraw/", follow=True
    )
    assert field_error(text_of(response), "form") == "The invitation was accepted already."
    assert store.last_sequence(campaign.id) == before
    assert Invitation.objects.get().status == "accepted"


def test_someone_with_an_account_is_invited_by_username_and_accepts_on_their_page(
    browser, campaign, blue, make_user
):
    pat = make_user("pat")
    response = browser.post(
        f"/campaigns/{campaign.id}/invitations/",
        {"username": "pat", "role": "player", "force": blue.id},
        follow=True,
    )
    assert "pat is invited as player: once logged in, they accept on their campaigns page." in (
        text_of(response)
    )
    invitee = Client()
    invitee.force_login(pat)
    invitation = Invitation.objects.get(username="pat")
    assert "You are invited as player" in text_of(invitee.get("/campaigns/"))
    invitee.post(f"/invitations/{invitation.id}/", {"answer": "accept"})
    member = Membership.objects.get(campaign_id=campaign.id, user_id=pat.pk)
    assert (member.role, member.force_ids) == ("player", [str(blue.id)])


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        (
            {"username": "umpire", "role": "observer"},
            "username",
            "umpire is already a member of this campaign.",
        ),
        ({"username": " ", "role": "observer"}, "username", "Say whom to invite."),
        (
            {"username": "kim", "role": "player"},
            "force_ids",
            "A player commands at least one force.",
        ),
    ],
)
def test_a_refused_invitation_by_username_is_shown_beside_its_field(
    browser, campaign, data, field, message
):
    before = store.last_sequence(campaign.id)
    response = browser.post(f"/campaigns/{campaign.id}/invitations/", data, follow=True)
    page = text_of(response)
    assert field_error(page.split('id="invite-username"')[1], field) == message
    assert store.last_sequence(campaign.id) == before
    assert not Invitation.objects.exists()


def test_a_json_roster_loads_and_its_problems_have_lines_too(browser, campaign, tmp_path):
    import json

    import yaml

    roster = yaml.safe_load(BLUE.read_text())
    good = tmp_path / "blue.json"
    good.write_text(json.dumps(roster, indent=2))
    with good.open("rb") as upload:
        response = browser.post(
            f"/campaigns/{campaign.id}/rosters/", {"roster": upload}, follow=True
        )
    assert "is loaded from blue.json." in text_of(response)
    roster["name"] = "Blue again"
    roster["colour"] = "blue"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(roster, indent=2))
    line = next(n for n, text in enumerate(bad.read_text().splitlines(), 1) if '"colour"' in text)
    with bad.open("rb") as upload:
        page = text_of(browser.post(f"/campaigns/{campaign.id}/rosters/", {"roster": upload}))
    problems = re.findall(r"<li>([^<]*)</li>", page.split('class="problems"')[1])
    assert problems[0].startswith(f"Line {line}, colour: ")
    assert Force.objects.filter(campaign_id=campaign.id).count() == 1
