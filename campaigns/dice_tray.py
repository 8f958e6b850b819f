"""The umpire's dice tray: dice thrown for anything the rules leave to the umpire.

One command for both sources: faces thrown at the table are entered and checked, or the server
throws in a resolution job from the campaign's seed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from campaigns.common import campaign_stream
from campaigns.events import DiceRolled, dice_json
from eventlog import commands
from eventlog.commands import Command, CommandContext, Decision, Params
from eventlog.errors import CommandError
from rules.dice import DiceSource, Die, Roll

MAX_DICE_PER_THROW = 100


class RollDiceParams(Params):
    die: int
    count: int = 1
    purpose: str


@commands.command
class RollDice(Command[RollDiceParams, None]):
    """Throw ``count`` dice of type ``die`` for ``purpose``."""

    name = "campaigns.roll_dice"
    Params = RollDiceParams
    rolls_dice = True
    invalid_code = "dice.invalid"

    def load(self, ctx: CommandContext, params: RollDiceParams) -> None:
        return None

    def check(self, ctx: CommandContext, state: None, params: RollDiceParams) -> None:
        if params.die not in {die.value for die in Die}:
            raise CommandError(
                "dice.unknown_die",
                f"There is no d{params.die}: dice are d4, d6, d8, d10 or d12.",
                field="die",
            )
        if not 1 <= params.count <= MAX_DICE_PER_THROW:
            raise CommandError(
                "dice.count", f"Throw between 1 and {MAX_DICE_PER_THROW} dice.", field="count"
            )
        if not params.purpose.strip():
            raise CommandError(
                "dice.purpose_required", "Say what the dice are for.", field="purpose"
            )

    def decide(
        self, ctx: CommandContext, state: None, params: RollDiceParams, dice: DiceSource | None
    ) -> Decision:
        assert dice is not None  # the table's faces, or the server's in a job
        purpose = params.purpose.strip()
        rolls = [dice.roll(Die(params.die), purpose) for _ in range(params.count)]
        throw = _throw(purpose, rolls, ctx.job.dice_namespace if ctx.job else None)
        return Decision.of([throw], stream=campaign_stream(ctx.campaign_id))


def _throw(purpose: str, rolls: list[Roll], namespace: str | None) -> DiceRolled:
    return DiceRolled(
        purpose=purpose,
        rolls=dice_json(rolls),
        total=sum(roll.result for roll in rolls),
        namespace=namespace,
    )


@contextlib.contextmanager
def table_dice_in(field_name: str) -> Iterator[None]:
    """The tray takes table faces in ``field_name`` (``results``), where the runner calls them
    ``dice``: a refusal of a face names the field the umpire filled in."""
    try:
        yield
    except CommandError as refusal:
        where = refusal.field or ""
        if where == "dice" or where.startswith("dice."):
            refusal.field = field_name + where[len("dice") :]
        raise
