"""Line charts as inline SVG, drawn on the server: readable without JavaScript, printable."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify

WIDTH, HEIGHT = 560, 250
LEFT, RIGHT, TOP, BOTTOM = 72, 16, 36, 66


@dataclass(frozen=True)
class Point:
    label: str  # the x-axis label (a battle, a day)
    value: float
    note: str = ""  # shown on hover and to screen readers


def line_chart(
    *,
    title: str,
    x_label: str,
    y_label: str,
    points: Sequence[Point],
    y_min: float = 0,
    y_max: float | None = None,
    y_ticks: Sequence[tuple[float, str]] = (),
    steps: bool = False,
    marks: Sequence[str] = (),
) -> SafeString:
    """An SVG line chart with a title, both axes labelled, and a point per value.

    ``steps`` draws a value that holds until the next point changes it (a strength, a level) as
    a step line rather than a slope. ``marks`` are short texts written above the points (a
    level's points). X labels too long for their place wrap onto a second line, and the first
    and last are anchored inside the chart, so none is cut off."""
    top = max([p.value for p in points] + [y_min + 1] + ([y_max] if y_max is not None else []))
    span = top - y_min or 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_w / max(len(points) - 1, 1)

    def x(i: int) -> float:
        return LEFT + (i * step if len(points) > 1 else plot_w / 2)

    def y(v: float) -> float:
        return TOP + plot_h - (v - y_min) / span * plot_h

    ticks = y_ticks or [(v, f"{v:g}") for v in _nice_ticks(y_min, top)]
    title_id = "chart-" + slugify(title)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'class="chart" aria-labelledby="{title_id}">',
        f'<title id="{title_id}">{escape(title)}</title>',
        f'<text x="{WIDTH / 2}" y="20" text-anchor="middle" class="chart-title">'
        f"{escape(title)}</text>",
        f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" '
        'class="axis"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" class="axis"/>',
    ]
    for value, label in ticks:
        parts.append(
            f'<line x1="{LEFT - 4}" y1="{y(value):.1f}" x2="{LEFT + plot_w}" y2="{y(value):.1f}" '
            'class="grid"/>'
            f'<text x="{LEFT - 8}" y="{y(value) + 4:.1f}" text-anchor="end" class="tick">'
            f"{escape(label)}</text>"
        )
    if points:
        corners: list[tuple[float, float]] = []
        for i, p in enumerate(points):
            if steps and corners:
                corners.append((x(i), corners[-1][1]))
            corners.append((x(i), y(p.value)))
        path = " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy in corners)
        parts.append(f'<polyline points="{path}" class="line"/>')
    room = max(int(step / 6.5), 6) if len(points) > 1 else 30
    for i, point in enumerate(points):
        anchor = "middle"
        if len(points) > 1 and i == 0:
            anchor = "start"
        elif len(points) > 1 and i == len(points) - 1:
            anchor = "end"
        lines = _wrapped(point.label, room)
        label = "".join(
            f'<tspan x="{x(i):.1f}" dy="{0 if n == 0 else 12}">{escape(text)}</tspan>'
            for n, text in enumerate(lines)
        )
        parts.append(
            f'<circle cx="{x(i):.1f}" cy="{y(point.value):.1f}" r="4" class="dot">'
            f"<title>{escape(point.label)}: {escape(point.note or f'{point.value:g}')}</title>"
            "</circle>"
            f'<text x="{x(i):.1f}" y="{TOP + plot_h + 16}" text-anchor="{anchor}" class="tick">'
            f"{label}</text>"
        )
        if i < len(marks) and marks[i]:
            parts.append(
                f'<text x="{x(i):.1f}" y="{y(point.value) - 8:.1f}" text-anchor="{anchor}" '
                f'class="mark">{escape(marks[i])}</text>'
            )
    parts.append(
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 8}" text-anchor="middle" class="axis-label">'
        f"{escape(x_label)}</text>"
        f'<text transform="translate(14 {TOP + plot_h / 2}) rotate(-90)" text-anchor="middle" '
        f'class="axis-label">{escape(y_label)}</text>'
    )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every piece of text above is escaped


def _nice_ticks(low: float, high: float) -> list[float]:
    span = high - low
    step = 1 if span <= 8 else 2 if span <= 16 else 5 if span <= 40 else 10
    start = int(low)
    return [v for v in range(start, int(high) + 1) if (v - start) % step == 0]


def _wrapped(label: str, room: int) -> list[str]:
    """A label in at most two lines of about ``room`` characters, broken between words; a word
    longer than that, or a third line, is shortened with an ellipsis."""
    words, lines = label.split(), [""]
    for word in words:
        candidate = f"{lines[-1]} {word}".strip()
        if len(candidate) <= room or not lines[-1]:
            lines[-1] = candidate
        else:
            lines.append(word)
    if len(lines) > 2:
        lines = [lines[0], " ".join(lines[1:])]
    return [line if len(line) <= room else line[: room - 1] + "…" for line in lines]
