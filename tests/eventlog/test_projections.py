"""Projections: inline, rebuilt and as-of folds agree."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import override_settings

from campaigns import services
from campaigns.models import Campaign, JournalNote
from eventlog import projections, store
from eventlog.models import ProjectionSnapshot
from tests.factories import campaign_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(umpire):
    campaign = campaign_for(umpire)
    for text in ("Day 1: landing", "Day 2: rain", "Day 3: the ridge"):
        services.note_record(campaign=campaign, text=text, actor=umpire)
    services.dice_enter(campaign=campaign, die=6, results=[3, 5], purpose="weather", actor=umpire)
    return campaign


def test_rebuild_produces_exactly_the_rows_the_inline_path_wrote(campaign, umpire):
    services.dice_request(campaign=campaign, die=8, count=3, purpose="patrol", actor=umpire)
    other = campaign_for(umpire, name="Second front", ruleset="fad")
    services.note_record(campaign=other, text="Elsewhere", actor=umpire)
    inline = projections.dump_rows()
    assert len(inline["campaigns.journalnote"]) == 4

    call_command("rebuild_projections", "--no-progress")

    assert projections.dump_rows() == inline


def test_rebuilding_one_campaign_leaves_the_others_alone(campaign, umpire):
    other = campaign_for(umpire, name="Second front")
    inline = projections.dump_rows()
    JournalNote.objects.filter(campaign_id=campaign.id).delete()

    call_command("rebuild_projections", "--campaign", str(campaign.id), "--no-progress")

    assert projections.dump_rows() == inline
    assert projections.dump_rows(other.id)["campaigns.campaign"][0]["name"] == "Second front"


def test_a_rebuild_reads_the_log_a_batch_at_a_time_and_writes_what_the_inline_path_wrote(
    campaign, umpire, monkeypatch
):
    """However long the log, a rebuild holds one batch of its events (and the rows they touch),
    not the log: here batches of two, with a void and the events after it in later batches."""
    from eventlog.services import event_void

    services.note_record(campaign=campaign, text="Day 4: the river", actor=umpire)
    event_void(campaign_id=campaign.id, sequence=2, reason="Wrong day", actor_id=umpire.pk)
    for text in ("Day 5: resupply", "Day 6: the bridge", "Day 7: relieved"):
        services.note_record(campaign=campaign, text=text, actor=umpire)
    inline = projections.dump_rows(campaign.id)
    batches: list[list[int]] = []
    apply_inline = projections.apply_inline

    def recording(campaign_id, events):
        batches.append([event.sequence for event in events])
        apply_inline(campaign_id, events)

    monkeypatch.setattr(projections, "REBUILD_BATCH", 2)
    monkeypatch.setattr(projections, "apply_inline", recording)

    call_command("rebuild_projections", "--campaign", str(campaign.id), "--no-progress")

    last = store.last_sequence(campaign.id)
    assert max(len(batch) for batch in batches) == 2
    assert [s for batch in batches for s in batch] == list(range(1, last + 1))
    assert projections.dump_rows(campaign.id) == inline


def test_a_void_refolds_from_the_latest_snapshot_before_what_it_voids(
    campaign, umpire, settings, monkeypatch
):
    """Not from the start of the log: a long campaign's voids would each fold all of it again."""
    from eventlog.services import event_void

    settings.MUSTER_SNAPSHOT_INTERVAL = 2
    for text in ("Day 4: the river", "Day 5: resupply", "Day 6: the bridge"):
        services.note_record(campaign=campaign, text=text, actor=umpire)
    projections.fold_as_of(campaign.id, 6)  # an as-of read caches the state after event 6
    reads: list[tuple[int, int]] = []
    read = store.read

    def recording(campaign_id, **options):
        if options.get("upto") is not None and not options.get("types"):
            reads.append((options.get("after", 0), options["upto"]))
        return read(campaign_id, **options)

    monkeypatch.setattr(store, "read", recording)
    event_void(campaign_id=campaign.id, sequence=7, reason="No resupply", actor_id=umpire.pk)

    void_at = store.last_sequence(campaign.id)
    assert (6, void_at) in reads  # the refold: from the snapshot after 6, which 7 follows
    assert (0, void_at) not in reads
    notes = JournalNote.objects.filter(campaign_id=campaign.id).values_list("text", flat=True)
    assert "Day 5: resupply" not in notes
    assert "Day 6: the bridge" in notes
    inline = projections.dump_rows(campaign.id)
    projections.rebuild(campaign.id)
    assert projections.dump_rows(campaign.id) == inline


def test_rebuild_command_refuses_an_unknown_campaign():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="not a campaign id"):
        call_command("rebuild_projections", "--campaign", "nope")
    with pytest.raises(CommandError, match="No campaign"):
        call_command("rebuild_projections", "--campaign", "00000000-0000-0000-0000-000000000001")


def test_as_of_folds_to_exactly_that_point(campaign):
    for upto, notes in ((1, 0), (2, 1), (3, 2), (4, 3), (5, 3)):
        rows = projections.fold_as_of(campaign.id, upto)
        assert len(rows.all(JournalNote)) == notes
        row = rows.get(Campaign, campaign.id)
        assert row is not None
        assert row["name"] == "Kessler Ridge"


def test_as_of_the_head_equals_the_tables(campaign):
    rows = projections.fold_as_of(campaign.id, None)
    tables = projections.dump_rows(campaign.id)
    for model in projections.iter_models():
        assert rows.all(model) == tables[model._meta.label_lower]


@override_settings(MUSTER_SNAPSHOT_INTERVAL=2)
def test_as_of_caches_a_snapshot_and_folds_on_from_it(campaign):
    expected = projections.fold_as_of(campaign.id, 5).tables
    key = projections.snapshot_key(projections.registered())
    assert list(
        ProjectionSnapshot.objects.filter(campaign_id=campaign.id, projection_key=key).values_list(
            "sequence", flat=True
        )
    ) == [4]
    # A second fold starts from the snapshot and reaches the same state.
    assert projections.fold_as_of(campaign.id, 5).tables == expected
    # Folding to an earlier point ignores snapshots taken after it.
    assert len(projections.fold_as_of(campaign.id, 3).all(JournalNote)) == 2
    assert sorted(
        ProjectionSnapshot.objects.filter(campaign_id=campaign.id).values_list(
            "sequence", flat=True
        )
    ) == [2, 4]


def test_a_rebuild_drops_cached_snapshots(campaign, settings):
    settings.MUSTER_SNAPSHOT_INTERVAL = 2
    projections.fold_as_of(campaign.id, None)
    assert ProjectionSnapshot.objects.filter(campaign_id=campaign.id).exists()
    projections.rebuild(campaign.id)
    assert not ProjectionSnapshot.objects.filter(campaign_id=campaign.id).exists()
    assert store.last_sequence(campaign.id) == 5
