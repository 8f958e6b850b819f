"""As-of benchmark: the roster as it stood at a late point of a long log, folded and versioned.

Raises the book's reinforced combat company (SG2 P.8) in a campaign, renames its troopers until
the log holds each size asked for, and times the force's detail (its units, troopers and
vehicles as a tree) as of the event before the last, read by :class:`FoldedRoster` (a fold of
the log from the latest cached snapshot: the first read folds and caches, later ones start from
the cache) and by :class:`TemporalRoster` (row versions). Each figure is the median of the runs.
Runs in a scratch database created for the run and dropped afterwards, on whichever database is
configured (``DATABASE_URL``).

    python -m bench.as_of [--sizes 1000 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
django.setup()

from django.db import connection  # noqa: E402

from eventlog import commands, store  # noqa: E402
from eventlog.store import NewEvent  # noqa: E402
from rosters.events import TrooperRenamed  # noqa: E402
from rosters.force_import import roster_spec  # noqa: E402
from rosters.models import Trooper  # noqa: E402
from rosters.selectors import FoldedRoster, RosterView, TemporalRoster, force_detail  # noqa: E402

COMPANY = Path(__file__).resolve().parents[1] / "examples" / "sg2-reinforced-combat-company.yaml"
BATCH = 100  # renames per append


def _bench_user() -> int:
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(username="bench")
    return user.pk


def campaign_with_company() -> uuid.UUID:
    campaign, umpire = uuid.uuid4(), _bench_user()
    commands.run(
        "campaigns.campaign_create",
        campaign_id=campaign,
        params={"name": "Bench", "ruleset": "sg2", "options": {}},
        actor_id=umpire,
    )
    commands.run(
        "rosters.force_import",
        campaign_id=campaign,
        params={
            "force": roster_spec(COMPANY.read_text(), ruleset="sg2", source=COMPANY.name),
            "source": COMPANY.name,
        },
        actor_id=umpire,
    )
    return campaign


def grow(campaign: uuid.UUID, size: int) -> float:
    """Rename troopers in turn until the log holds ``size`` events; the seconds it took."""
    troopers = list(Trooper.objects.filter(campaign_id=campaign).values_list("id", flat=True))
    started = time.perf_counter()
    done = store.last_sequence(campaign)
    while done < size:
        events = [
            NewEvent.of(
                TrooperRenamed(
                    trooper_id=troopers[n % len(troopers)], name=f"Trooper {n}", reason="bench"
                ),
                stream=f"trooper:{troopers[n % len(troopers)]}",
            )
            for n in range(done, min(size, done + BATCH))
        ]
        store.append(campaign, events, actor_id=1)
        done = store.last_sequence(campaign)
    return time.perf_counter() - started


def detail(view: RosterView) -> object:
    return [force_detail(view, force) for force in view.forces()]


def median_ms(runs: int, view: Callable[[uuid.UUID, int], RosterView], *at: Any) -> float:
    """The median time of reading the forces' detail from a new ``view(*at)``, in ms."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        detail(view(*at))
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    creation = connection.creation
    original = connection.settings_dict["NAME"]
    scratch = creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        print(f"As-of benchmark on {connection.vendor} ({scratch}), scratch database")
        print(f"{'events':>8} {'append ev/s':>12} {'fold 1st':>10} {'fold':>10} {'versions':>10}")
        campaign = campaign_with_company()
        for size in sorted(args.sizes):
            before = store.last_sequence(campaign)
            seconds = grow(campaign, size)
            rate = (size - before) / seconds
            upto = size - 1
            first = median_ms(1, FoldedRoster, campaign, upto)
            folded = median_ms(args.runs, FoldedRoster, campaign, upto)
            versioned = median_ms(args.runs, TemporalRoster, campaign, upto)
            assert detail(TemporalRoster(campaign, upto)) == detail(FoldedRoster(campaign, upto))
            print(f"{size:>8} {rate:>12,.0f} {first:>8.1f}ms {folded:>8.1f}ms {versioned:>8.1f}ms")
    finally:
        creation.destroy_test_db(original, verbosity=0)


if __name__ == "__main__":
    main()
