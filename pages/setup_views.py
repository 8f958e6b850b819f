"""A campaign's set-up as pages: creating it with its ruleset's options, loading its rosters,
its members and the invitation links that bring new people in.

Each form posts to the service the API calls (``campaigns.services``,
``campaigns.invitation_links``, ``rosters.services``), which runs the command. A refused command
shows the form again with the service's message beside the field it names, and nothing written.
Only the campaign's umpire may use these pages (403 for other members, 404 for anyone else), but
for the invitation link itself, which is for someone who has no account yet.
"""

from __future__ import annotations

import hmac
import uuid
from typing import Any, cast

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from campaigns import services as campaign_services
from campaigns.invitation_links import (
    IssuedLink,
    invitation_link_accept,
    invitation_link_issue,
    link_invitation,
    secret_hash,
)
from campaigns.models import Campaign, Invitation, InvitationLinkSecret, Membership
from eventlog.errors import CommandError, NotFound
from pages import forms as umpire_forms
from pages import setup_forms
from pages.access import is_umpire, member, signed_in_user
from rosters.force_import import RosterRejected
from rosters.models import Force
from rosters.services import force_import_text
from rules.rulesets import Ruleset, definitions

# Larger than any roster a campaign needs (the reinforced company is a few kilobytes).
MAX_ROSTER_BYTES = 1024 * 1024
MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


def _umpire_of(request: HttpRequest, campaign_id: uuid.UUID) -> Campaign:
    campaign, membership = member(request, campaign_id)
    if not is_umpire(membership):
        raise PermissionDenied("Only the campaign's umpire may do this.")
    return campaign


def _ruleset_choices() -> list[dict[str, str]]:
    return [{"code": d.code, "label": d.label} for d in definitions()]


# --- Creating a campaign --------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def campaign_create(request: HttpRequest) -> HttpResponse:
    """Choose the ruleset (a GET form, so the page needs no script), then name the campaign and
    set its options, each shown with the book's default and what it means."""
    codes = [d.code for d in definitions()]
    asked = (request.POST.get("ruleset") or request.GET.get("ruleset") or "").strip()
    ruleset = asked if asked in codes else Ruleset.SG2.value
    form = setup_forms.CampaignForm(request.POST or None, initial={"ruleset": ruleset})
    # Options posted for a ruleset there is not are not read: the service refuses the ruleset.
    posted = request.POST if asked in codes else None
    options = setup_forms.OptionsForm(ruleset, posted or None)
    ruleset_error = ""
    if asked and asked not in codes and request.method == "GET":
        ruleset_error = f"Unknown ruleset {asked!r}: choose one of {', '.join(codes)}."
    if request.method == "POST" and form.is_valid() and (posted is None or options.is_valid()):
        try:
            campaign = campaign_services.campaign_create(
                name=form.cleaned_data["name"],
                ruleset=form.cleaned_data["ruleset"],
                options=options.options() if asked in codes else {},
                actor=signed_in_user(request),
            )
        except CommandError as error:
            if (error.field or "").startswith("options"):
                setup_forms.show_refusal(options, error)
            elif error.field == "ruleset":
                ruleset_error = error.message
            else:
                setup_forms.show_refusal(form, error)
        else:
            messages.success(
                request,
                f"{campaign.name} is created and you are its umpire. Load its forces' rosters "
                "next, then invite the players.",
            )
            return redirect("pages:rosters", campaign.id)
    return render(
        request,
        "pages/campaign_new.html",
        {
            "rulesets": _ruleset_choices(),
            "ruleset": ruleset,
            "ruleset_error": ruleset_error,
            "form": form,
            "options": options,
            "groups": options.bound_inputs(),
            "options_open": bool(options.errors),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def campaign_options(request: HttpRequest, campaign_id: uuid.UUID) -> HttpResponse:
    """The campaign's options as they stand; the umpire changes some, saying why."""
    campaign = _umpire_of(request, campaign_id)
    data = request.POST or None
    options = setup_forms.OptionsForm(campaign.ruleset, data, values=campaign.options)
    reason = setup_forms.OptionsChangeForm(data)
    if request.method == "POST" and options.is_valid() and reason.is_valid():
        try:
            event = campaign_services.options_change(
                campaign=campaign,
                changes=options.options(),
                reason=reason.cleaned_data["reason"],
                actor=signed_in_user(request),
            )
        except CommandError as error:
            about_options = (error.field or "").startswith("options") or error.field == "changes"
            target = options if about_options else reason
            setup_forms.show_refusal(target, error)
        else:
            changed = ", ".join(
                f"{name.replace('_', ' ')} from {setup_forms.shown(change['from'])} to "
                f"{setup_forms.shown(change['to'])}"
                for name, change in event.payload["changes"].items()
            )
            messages.success(request, f"Options changed: {changed}.")
            return redirect("pages:campaign_options", campaign.id)
    return render(
        request,
        "pages/campaign_options.html",
        {
            "campaign": campaign,
            "options": options,
            "groups": options.bound_inputs(),
            "reason": reason,
        },
    )


# --- Rosters --------------------------------------------------------------------------------------


def _problem_text(problem: Any) -> str:
    where = [f"line {problem.line}"] if problem.line is not None else []
    if problem.path:
        where.append(problem.path)
    return f"{', '.join(where).capitalize()}: {problem.message}" if where else problem.message


@login_required
@require_http_methods(["GET", "POST"])
def rosters(request: HttpRequest, campaign_id: uuid.UUID) -> HttpResponse:
    """The campaign's forces, and a roster file to load another from (YAML or JSON,
    docs/roster-format.md). A file with problems lists every one, with its line and field, and
    loads nothing."""
    campaign = _umpire_of(request, campaign_id)
    form = setup_forms.RosterUploadForm(request.POST or None, request.FILES or None)
    problems: list[str] = []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["roster"]
        text = None
        if upload.size > MAX_ROSTER_BYTES:
            form.add_error("roster", "The file is larger than a roster can be (1 MB).")
        else:
            try:
                text = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError:
                form.add_error("roster", "The file is not text (UTF-8): save it as YAML or JSON.")
        if text is not None:
            try:
                force = force_import_text(
                    campaign=campaign,
                    text=text,
                    source=upload.name[:200],
                    actor=signed_in_user(request),
                )
            except RosterRejected as rejected:
                form.add_error("roster", rejected.message)
                problems = [_problem_text(p) for p in rejected.problems]
            except CommandError as error:
                setup_forms.show_refusal(form, error, fields={"force": "roster"})
            else:
                messages.success(
                    request, f"{force.name} ({force.side}) is loaded from {upload.name}."
                )
                return redirect("pages:rosters", campaign.id)
    forces = Force.objects.filter(campaign_id=campaign.id).order_by("raised_sequence")
    return render(
        request,
        "pages/rosters.html",
        {"campaign": campaign, "form": form, "problems": problems, "forces": forces},
    )


# --- Members and invitations ----------------------------------------------------------------------


def _members_page(
    request: HttpRequest, campaign: Campaign, *, link: IssuedLink | None = None
) -> HttpResponse:
    refusal = umpire_forms.take_refusal(request)
    errors: dict[str, dict[str, str]] = {}
    if refusal is not None:
        errors.setdefault(refusal.form, {})[refusal.anchor] = refusal.message
    forces = list(Force.objects.filter(campaign_id=campaign.id).order_by("raised_sequence"))
    names = {str(f.id): f.name for f in forces}
    members: list[dict[str, Any]] = [
        {
            "membership": m,
            "forces": [names.get(f, f) for f in m.force_ids],
            "force": m.force_ids[0] if m.force_ids else "",
            "errors": errors.get(f"member-{m.user_id}", {}),
            "is_you": m.user_id == request.user.pk,
        }
        for m in Membership.objects.filter(campaign_id=campaign.id).order_by("joined_at")
    ]
    usernames = {m["membership"].user_id: m["membership"].username for m in members}
    now = timezone.now()
    invitations: list[dict[str, Any]] = [
        {
            "invitation": i,
            "forces": [names.get(f, f) for f in i.force_ids],
            "expired": i.expires_at is not None and i.expires_at <= now,
            "joined_as": usernames.get(i.user_id) if i.user_id else None,
            "error": errors.get(f"invitation-{i.id}", {}).get("form"),
        }
        for i in Invitation.objects.filter(campaign_id=campaign.id).order_by("-invited_at")
    ]
    link_url = link_for = None
    if link is not None:
        link_url = request.build_absolute_uri(
            reverse("pages:join", args=[link.invitation_id, link.secret])
        )
        made = next(row for row in invitations if row["invitation"].id == link.invitation_id)
        link_for = made["invitation"].role
        if made["forces"]:
            link_for += " of " + ", ".join(made["forces"])
    return render(
        request,
        "pages/members.html",
        {
            "campaign": campaign,
            "members": members,
            "invitations": invitations,
            "forces": forces,
            "link_url": link_url,
            "link_for": link_for,
            "link": link,
            "link_errors": errors.get("link", {}),
            "link_values": refusal.values if refusal and refusal.form == "link" else {},
            "invite_errors": errors.get("invite", {}),
            "invite_values": refusal.values if refusal and refusal.form == "invite" else {},
        },
    )


@login_required
@require_http_methods(["GET"])
def members(request: HttpRequest, campaign_id: uuid.UUID) -> HttpResponse:
    return _members_page(request, _umpire_of(request, campaign_id))


def _members_path(campaign: Campaign) -> str:
    return reverse("pages:members", args=[campaign.id])


def _back(campaign: Campaign, anchor: str) -> HttpResponse:
    return redirect(f"{_members_path(campaign)}#{anchor}")


def _forces_of(data: dict[str, Any]) -> list[uuid.UUID]:
    return [data["force"]] if data.get("force") else []


@login_required
@require_POST
def invitation_link_create(request: HttpRequest, campaign_id: uuid.UUID) -> HttpResponse:
    """Make an invitation link and show it, once: its secret is kept nowhere else."""
    campaign = _umpire_of(request, campaign_id)
    path = _members_path(campaign)
    form = setup_forms.InvitationLinkForm(request.POST)
    if not form.is_valid():
        umpire_forms.invalid(request, form, name="link", path=path)
        return _back(campaign, "invite")
    try:
        link = invitation_link_issue(
            campaign=campaign,
            role=form.cleaned_data["role"],
            force_ids=_forces_of(form.cleaned_data),
            expires_in_days=form.cleaned_data["expires_in_days"],
            actor=signed_in_user(request),
        )
    except CommandError as error:
        umpire_forms.refused(
            request,
            error,
            form="link",
            path=path,
            anchors=[*form.fields, "force_ids"],
        )
        return _back(campaign, "invite")
    return _members_page(request, campaign, link=link)


@login_required
@require_POST
def member_invite(request: HttpRequest, campaign_id: uuid.UUID) -> HttpResponse:
    """Invite someone who has an account already, by username, in any role: they accept on
    their campaigns page. The answer is the same whether or not the username is someone's."""
    campaign = _umpire_of(request, campaign_id)
    path = _members_path(campaign)
    form = setup_forms.MemberInviteForm(request.POST)
    if not form.is_valid():
        umpire_forms.invalid(request, form, name="invite", path=path)
        return _back(campaign, "invite-username")
    try:
        invitation = campaign_services.member_invite(
            campaign=campaign,
            username=form.cleaned_data["username"],
            role=form.cleaned_data["role"],
            force_ids=_forces_of(form.cleaned_data),
            actor=signed_in_user(request),
        )
    except CommandError as error:
        umpire_forms.refused(
            request, error, form="invite", path=path, anchors=[*form.fields, "force_ids"]
        )
        return _back(campaign, "invite-username")
    messages.success(
        request,
        f"{invitation.username} is invited as {invitation.role}: once logged in, they accept "
        "on their campaigns page.",
    )
    return _back(campaign, "invitations")


@login_required
@require_POST
def invitation_withdraw(
    request: HttpRequest, campaign_id: uuid.UUID, invitation_id: uuid.UUID
) -> HttpResponse:
    campaign = _umpire_of(request, campaign_id)
    try:
        campaign_services.invitation_withdraw(
            campaign=campaign, invitation_id=invitation_id, actor=signed_in_user(request)
        )
    except CommandError as error:
        umpire_forms.refused(
            request, error, form=f"invitation-{invitation_id}", path=_members_path(campaign)
        )
        return _back(campaign, f"invitation-{invitation_id}")
    messages.success(request, "The invitation is withdrawn: it no longer works.")
    return _back(campaign, "invitations")


@login_required
@require_POST
def member_change(request: HttpRequest, campaign_id: uuid.UUID, user_id: int) -> HttpResponse:
    """Change a member's role and force."""
    campaign = _umpire_of(request, campaign_id)
    path, name = _members_path(campaign), f"member-{user_id}"
    form = setup_forms.MemberChangeForm(request.POST)
    if not form.is_valid():
        umpire_forms.invalid(request, form, name=name, path=path)
        return _back(campaign, name)
    try:
        campaign_services.member_change(
            campaign=campaign,
            user_id=user_id,
            role=form.cleaned_data["role"],
            force_ids=_forces_of(form.cleaned_data),
            actor=signed_in_user(request),
        )
    except CommandError as error:
        umpire_forms.refused(
            request,
            error,
            form=name,
            path=path,
            anchors=[*form.fields, "force_ids"],
        )
        return _back(campaign, name)
    changed = Membership.objects.get(campaign_id=campaign.id, user_id=user_id)
    messages.success(request, f"{changed.username} is now {changed.role}.")
    return _back(campaign, name)


@login_required
@require_POST
def member_remove(request: HttpRequest, campaign_id: uuid.UUID, user_id: int) -> HttpResponse:
    """Remove a member, saying why; the last umpire stays."""
    campaign = _umpire_of(request, campaign_id)
    path, name = _members_path(campaign), f"member-{user_id}"
    form = setup_forms.MemberRemoveForm(request.POST)
    form.is_valid()
    leaving = Membership.objects.filter(campaign_id=campaign.id, user_id=user_id).first()
    try:
        campaign_services.member_remove(
            campaign=campaign,
            user_id=user_id,
            reason=form.cleaned_data.get("reason", ""),
            actor=signed_in_user(request),
        )
    except CommandError as error:
        # The reason has its own input; "user_id" (the last umpire) is about the member.
        umpire_forms.refused(request, error, form=name, path=path, anchors=["reason"])
        return _back(campaign, name)
    messages.success(request, f"{leaving.username if leaving else 'The member'} is removed.")
    return _back(campaign, "members")


# --- Joining with a link --------------------------------------------------------------------------


def _valid_link(invitation_id: uuid.UUID, secret: str) -> Invitation:
    """The invitation of a link whose secret is right; anything else is not found, so a
    guessed link tells nothing."""
    try:
        invitation = link_invitation(invitation_id)
    except NotFound:
        raise Http404("This invitation link is not valid.") from None
    kept = InvitationLinkSecret.objects.filter(pk=invitation_id).first()
    if kept is None or not hmac.compare_digest(kept.secret_hash, secret_hash(secret)):
        raise Http404("This invitation link is not valid.")
    return invitation


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, invitation_id: uuid.UUID, secret: str) -> HttpResponse:
    """Someone with an invitation link chooses a username and password, and joins the campaign
    in the role and force the umpire chose; they are then logged in."""
    invitation = _valid_link(invitation_id, secret)
    campaign = Campaign.objects.get(pk=invitation.campaign_id)
    form = setup_forms.JoinForm(request.POST or None)
    closed = ""
    if invitation.status == Invitation.Status.ACCEPTED:
        closed = "This invitation link has been used already: it works once."
    elif invitation.status != Invitation.Status.PENDING:
        closed = f"This invitation link was {invitation.status}."
    elif invitation.expires_at is not None and invitation.expires_at <= timezone.now():
        closed = "This invitation link has expired."
    if request.method == "POST" and not closed and form.is_valid():
        try:
            user = invitation_link_accept(
                invitation_id=invitation.id,
                secret=secret,
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password"],
            )
        except CommandError as error:
            setup_forms.show_refusal(form, error)
        else:
            login(request, cast(User, user), backend=MODEL_BACKEND)
            role = invitation.role
            messages.success(request, f"Welcome, {user.get_username()}: you joined as {role}.")
            return redirect("pages:dashboard", campaign.id)
    names = dict(
        Force.objects.filter(campaign_id=campaign.id, id__in=invitation.force_ids).values_list(
            "id", "name"
        )
    )
    umpire = (
        Membership.objects.filter(campaign_id=campaign.id, user_id=invitation.invited_by_id or 0)
        .values_list("username", flat=True)
        .first()
    )
    return render(
        request,
        "pages/join.html",
        {
            "campaign": campaign,
            "invitation": invitation,
            "forces": [names.get(uuid.UUID(f), f) for f in invitation.force_ids],
            "umpire": umpire,
            "closed": closed,
            "form": form,
        },
        status=410 if closed else 200,
    )
