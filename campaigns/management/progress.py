"""Progress bars for the campaign commands, on standard error so standard output stays theirs."""

from __future__ import annotations

from typing import IO

from tqdm import tqdm


class ProgressBar:
    """One bar per phase of a long command (``campaigns.archive.Progress``)."""

    def __init__(self, out: IO[str], *, disable: bool = False) -> None:
        self.out = out
        self.disable = disable
        self.bar: tqdm | None = None

    def start(self, phase: str, total: int) -> None:
        self.close()
        self.bar = tqdm(total=total, desc=phase, unit="record", file=self.out, disable=self.disable)

    def advance(self, count: int) -> None:
        if self.bar is not None:
            self.bar.update(count)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
