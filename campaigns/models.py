"""Campaign read models (projections of the log) and the campaign's dice seed."""

from __future__ import annotations

from django.db import models


class Campaign(models.Model):
    """A campaign as its events describe it."""

    id = models.UUIDField(primary_key=True)
    campaign_id = models.UUIDField(db_index=True)
    name = models.CharField(max_length=200)
    ruleset = models.CharField(max_length=10)
    options = models.JSONField(default=dict)
    umpire_id = models.IntegerField()
    seed_commitment = models.CharField(max_length=64)
    created_at = models.DateTimeField()
    day = models.IntegerField(default=0, help_text="The campaign calendar's current day.")
    # Set for a branch (what-if) of another campaign: its creation event's ``branch_of``.
    branch_of = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A user's role in a campaign."""

    class Role(models.TextChoices):
        UMPIRE = "umpire"
        PLAYER = "player"
        OBSERVER = "observer"

    key = models.CharField(primary_key=True, max_length=80)
    campaign_id = models.UUIDField()
    user_id = models.IntegerField(db_index=True)
    username = models.CharField(max_length=150, blank=True, default="")
    role = models.CharField(max_length=20, choices=Role.choices)
    # The ids (as strings) of the forces a player commands; umpires and observers have none.
    force_ids = models.JSONField(default=list, blank=True)
    joined_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign_id", "user_id"], name="campaign_member_once")
        ]

    def __str__(self) -> str:
        return f"{self.username or f'user {self.user_id}'} is {self.role}"


class Invitation(models.Model):
    """An invitation to join a campaign, addressed to a username, and how it was answered."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        DECLINED = "declined"
        WITHDRAWN = "withdrawn"

    id = models.UUIDField(primary_key=True)
    campaign_id = models.UUIDField(db_index=True)
    username = models.CharField(max_length=150, db_index=True)
    role = models.CharField(max_length=20, choices=Membership.Role.choices)
    force_ids = models.JSONField(default=list, blank=True)
    invited_by_id = models.IntegerField(null=True)
    invited_at = models.DateTimeField()
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    # Who answered, once someone has: the invited user.
    user_id = models.IntegerField(null=True)
    answered_at = models.DateTimeField(null=True)
    # The member whose place the invited user takes on accepting (a hand-over), if any.
    replaces_user_id = models.IntegerField(null=True, blank=True)
    # An invitation link (``campaigns.invitation_links``) is addressed to no username (the
    # invitee chooses one) and stops working at this moment; an invitation by username has none.
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["invited_at", "id"]

    def __str__(self) -> str:
        return f"{self.username or 'a link'} as {self.role} ({self.status})"

    @property
    def is_link(self) -> bool:
        return self.expires_at is not None


class JournalNote(models.Model):
    """A note in the umpire's campaign journal."""

    position = models.BigIntegerField(primary_key=True)
    campaign_id = models.UUIDField()
    sequence = models.PositiveBigIntegerField()
    text = models.TextField()
    references = models.JSONField(default=list)
    author_id = models.IntegerField(null=True)
    recorded_at = models.DateTimeField()

    class Meta:
        ordering = ["sequence"]
        # Read a page at a time in order of sequence: an index walk, not a sort of them all.
        indexes = [
            models.Index(fields=["campaign_id", "sequence"], name="campaigns_note_campaign_seq")
        ]

    def __str__(self) -> str:
        return self.text[:60]


class DiceTrayRoll(models.Model):
    """One throw on the umpire's dice tray."""

    position = models.BigIntegerField(primary_key=True)
    campaign_id = models.UUIDField()
    sequence = models.PositiveBigIntegerField()
    purpose = models.CharField(max_length=200)
    rolls = models.JSONField()
    total = models.IntegerField()
    job_id = models.UUIDField(null=True)
    recorded_at = models.DateTimeField()

    class Meta:
        ordering = ["sequence"]
        # Read a page at a time in order of sequence: an index walk, not a sort of them all.
        indexes = [
            models.Index(fields=["campaign_id", "sequence"], name="campaigns_roll_campaign_seq")
        ]

    def __str__(self) -> str:
        return f"{self.purpose}: {self.total}"


class CampaignHistoryEntry(models.Model):
    """One campaign-level event told in plain words: the campaign's history page."""

    position = models.BigIntegerField(primary_key=True)
    campaign_id = models.UUIDField()
    sequence = models.PositiveBigIntegerField()
    type = models.CharField(max_length=100)
    summary = models.TextField()
    actor_id = models.IntegerField(null=True)
    recorded_at = models.DateTimeField()

    class Meta:
        ordering = ["sequence"]
        # Read a page at a time in order of sequence: an index walk, not a sort of them all.
        indexes = [
            models.Index(fields=["campaign_id", "sequence"], name="campaigns_hist_campaign_seq")
        ]
        verbose_name_plural = "campaign history entries"

    def __str__(self) -> str:
        return f"#{self.sequence} {self.summary[:60]}"


class InvitationLinkSecret(models.Model):
    """The hash of an invitation link's secret: whoever holds the link may join with it.

    Not a read model and not an event, like the seed: the log is read by the campaign's members,
    and the link is for its invitee alone. Written in the issuing command's transaction.
    """

    invitation_id = models.UUIDField(primary_key=True)
    campaign_id = models.UUIDField(db_index=True)
    secret_hash = models.CharField(max_length=64)

    def __str__(self) -> str:
        return f"link of invitation {self.invitation_id}"


class CampaignSeed(models.Model):
    """The secret seed the server's dice are derived from: the seed of the current dice epoch.

    Kept out of the log so players cannot predict rolls; the log holds its SHA-256 commitment.
    Closing the epoch reveals this seed in the log and replaces it with the next epoch's
    (docs/adr/0013-dice-epochs.md), so the seeds of closed epochs are public and only the
    current one is kept here.
    """

    campaign_id = models.UUIDField(primary_key=True)
    seed = models.CharField(max_length=64)
    epoch = models.PositiveIntegerField(
        default=0, help_text="The dice epoch this seed belongs to; 0 until one is closed."
    )

    def __str__(self) -> str:
        return f"seed of {self.campaign_id}"
