"""The campaign's own read models as of a point of the log, read from their tables rather than
folded from the log (docs/adr/0028-campaign-reads-as-of-without-snapshots.md).

- The campaign row as of N: only a few event types write it (``CAMPAIGN_ROW_EVENTS``), so it
  is those events up to N folded, read through the (campaign, type, sequence) index of the
  log, leaving out the events voided by N. A campaign has a handful of them (options changes,
  calendar days, dice epochs), however long its log.
- The journal and the history as of N: their lines are only ever added, each at the sequence of
  the event it tells, so they are the current lines up to N, unless a void after N took back an
  event at or before N (``eventlog.versions.lines_stand``): then, and only then, the log is
  folded as of N, as before.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import QuerySet

from campaigns.models import Campaign, CampaignHistoryEntry, JournalNote
from campaigns.projections import CAMPAIGN_ROW_EVENTS, CampaignProjection, JournalProjection
from campaigns.selectors import history_list
from campaigns.visibility import Judge
from eventlog import projections, store, versions
from eventlog.projections import Row

# Sequences per ``IN`` list: within SQLite's 999 parameters.
_CHUNK = 500


def campaign_as_of(campaign_id: uuid.UUID, sequence: int) -> Row | None:
    """The campaign row as it stood after event ``sequence`` (None: not created yet)."""
    rows = projections.fold_events(
        store.read(campaign_id, upto=sequence, types=CAMPAIGN_ROW_EVENTS),
        [projections.get(CampaignProjection.name)],
        voided=projections.voids(campaign_id, sequence),
    )
    return rows.get(Campaign, campaign_id)


def journal_notes_seen(campaign_id: uuid.UUID, judge: Judge) -> int:
    """How many journal notes the judge's reader may read, now or as of ``judge.at``: the
    notes counted, less those hidden from the reader (a count of the few hidden ones), in a
    fixed number of queries whatever the length of the journal."""
    upto = judge.at
    if upto is not None and not versions.lines_stand(campaign_id, upto):
        folded = projections.fold_as_of(
            campaign_id, upto, [projections.get(JournalProjection.name)]
        )
        return len(judge.shown(folded.all(JournalNote)))
    notes = JournalNote.objects.filter(campaign_id=campaign_id)
    if upto is not None:
        notes = notes.filter(sequence__lte=upto)
    unseen = judge.unseen_events()
    hidden = sum(
        notes.filter(sequence__in=unseen[start : start + _CHUNK]).count()
        for start in range(0, len(unseen), _CHUNK)
    )
    return notes.count() - hidden


def history_as_of(
    campaign_id: uuid.UUID, sequence: int
) -> QuerySet[CampaignHistoryEntry, Any] | list[Row]:
    """The campaign's history lines as they stood after event ``sequence``, in order."""
    if versions.lines_stand(campaign_id, sequence):
        # Rows as the fold gives them: a history is long, and model instances cost more.
        return history_list(campaign_id=campaign_id).filter(sequence__lte=sequence).values()
    folded = projections.fold_as_of(
        campaign_id, sequence, [projections.get(CampaignProjection.name)]
    )
    return sorted(folded.all(CampaignHistoryEntry), key=lambda row: row["sequence"])
