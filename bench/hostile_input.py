"""Hostile roster files against an honest one: how long the reader takes to refuse them and how
much memory it uses, beside reading the largest example roster, in the same run.

The alias bombs are the nested-alias files of ``tests/rosters/test_roster_file.py`` (each level
stands for nine of the one before): seven levels stand for 43 million values, eight for 387
million, in a few hundred bytes. The reader counts the parsed graph, each node once, and refuses
them before anything is expanded.

    python -m bench.hostile_input [--rounds 5]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import statistics
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
django.setup()

from rosters.roster_file import parse_roster  # noqa: E402
from rosters.roster_file.problems import RosterFileError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HONEST = ROOT / "examples" / "sg2-reinforced-combat-company.yaml"


def yaml_bomb(levels: int) -> str:
    lines = ['x0: &x0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for n in range(1, levels + 1):
        lines.append(f"x{n}: &x{n} [{', '.join([f'*x{n - 1}'] * 9)}]")
    return "\n".join([*lines, "name: Bomb", "side: Blue", f"units: *x{levels}"]) + "\n"


def measure(read: Callable[[], object], rounds: int) -> tuple[float, float]:
    """Median milliseconds and the peak memory allocated (MB) of ``read``."""
    times = []
    peak = 0
    for _ in range(rounds):
        tracemalloc.start()
        started = time.perf_counter()
        with contextlib.suppress(RosterFileError):  # a refusal is the expected outcome
            read()
        times.append((time.perf_counter() - started) * 1000)
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return statistics.median(times), peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    honest = HONEST.read_text(encoding="utf-8")
    cases = [("honest: " + HONEST.name, honest)]
    cases += [(f"alias bomb, {levels} levels", yaml_bomb(levels)) for levels in (6, 7, 8)]
    baseline_ms, baseline_mb = measure(lambda: parse_roster(honest, ruleset="sg2"), rounds)
    print(f"{'file':<50} {'bytes':>7} {'median ms':>10} {'peak MB':>8} {'x honest':>9}")
    for name, text in cases:
        ms, mb = measure(functools.partial(parse_roster, text, ruleset="sg2"), rounds)
        print(f"{name:<50} {len(text):>7} {ms:>10.2f} {mb:>8.2f} {ms / baseline_ms:>9.2f}")
    print(f"(baseline: the honest file, {baseline_ms:.2f} ms, {baseline_mb:.2f} MB)")


if __name__ == "__main__":
    main()
