"""A long history is read a chunk at a time as its page is cut (rosters.selectors.lines_as_read):
every line after the cursor comes once, in order, whatever the chunk and however many lines one
event tells."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rosters.selectors import lines_as_read

# Lines per event: (sequence, how many lines it told).
histories = st.lists(st.integers(min_value=1, max_value=5), max_size=40).map(
    lambda counts: [
        {"sequence": sequence, "key": f"{sequence}:{n}"}
        for sequence, count in enumerate(counts, start=1)
        for n in range(count)
    ]
)


@given(histories, st.integers(min_value=0, max_value=45), st.integers(min_value=1, max_value=12))
def test_every_line_after_the_cursor_comes_once_in_order(lines, after, chunk):
    def read(_entity, *, after: int = 0, limit: int | None = None):
        return [line for line in lines if line["sequence"] > after][:limit]

    assert list(lines_as_read(read, "unit", after=after, chunk=chunk)) == [
        line for line in lines if line["sequence"] > after
    ]


def test_a_page_of_a_long_history_reads_about_a_page():
    lines: list[dict[str, Any]] = [{"sequence": s, "key": f"{s}:0"} for s in range(1, 10_001)]
    read_rows: list[int] = []

    def read(_entity, *, after: int = 0, limit: int | None = None):
        found = [line for line in lines if line["sequence"] > after][:limit]
        read_rows.append(len(found))
        return found

    page = []
    for line in lines_as_read(read, "unit", chunk=101):
        page.append(line)
        if len(page) == 51:
            break
    assert [line["sequence"] for line in page] == list(range(1, 52))
    assert sum(read_rows) == 101
