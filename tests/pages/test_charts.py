"""The server's SVG charts: steps for what holds until it changes, labels that are never cut
off (pages/charts.py)."""

from __future__ import annotations

import itertools
import re

from pages.charts import Point, line_chart


def chart(**extra) -> str:
    points = [
        Point("day 0", 6),
        Point("Recon in force", 5),
        Point("Breakthrough at Kessler", 4),
    ]
    drawn = line_chart(title="Strength", x_label="Battle", y_label="Men", points=points, **extra)
    return str(drawn)


def corners(svg: str) -> list[tuple[float, float]]:
    found = re.search(r'<polyline points="([^"]+)"', svg)
    assert found is not None
    return [tuple(map(float, pair.split(","))) for pair in found.group(1).split()]  # type: ignore[misc]


def test_a_step_line_holds_each_value_until_the_next_point():
    sloped, stepped = corners(chart()), corners(chart(steps=True))
    assert len(sloped) == 3
    assert len(stepped) == 5
    # Across, then down: the strength held until the battle changed it.
    for (x1, y1), (x2, y2) in itertools.pairwise(stepped):
        assert x1 == x2 or y1 == y2


def test_long_labels_wrap_and_the_edges_stay_inside():
    many = [Point(f"day {n}", n) for n in range(4)] + [Point("Breakthrough at Kessler", 3)]
    svg = str(line_chart(title="Strength", x_label="Battle", y_label="Men", points=many))
    wrapped = '<tspan x="544.0" dy="0">Breakthrough at</tspan><tspan x="544.0" dy="12">Kessler'
    assert wrapped in svg
    assert "…" not in svg
    assert 'text-anchor="start" class="tick"><tspan' in svg
    assert 'text-anchor="end" class="tick"><tspan' in svg


def test_marks_are_written_above_their_points():
    svg = chart(marks=["0 pts", "", "7 pts"])
    assert svg.count('class="mark"') == 2
    assert ">7 pts</text>" in svg
