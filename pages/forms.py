"""The umpire's forms: parsing what a browser posts into the arguments of the services the API
calls, and carrying a refused command back to the page that posted it.

The forms check only the shape of the input (a whole number, a known unit); every rule stays in
the services, whose :class:`eventlog.errors.CommandError` names the offending field. A refusal
is kept in the session until the page it returns to shows it beside that field, as Django's
messages are kept until shown.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from django import forms
from django.http import HttpRequest

from eventlog.errors import CommandError
from rosters.services import LOCATIONS

REFUSAL_KEY = "pages.umpire_refusal"

# Where a refusal without a field of its own, or naming a field the form has no input for
# ("battle", "dice.0"), is shown: at the top of the form.
WHOLE_FORM = "form"


@dataclass
class Refusal:
    """A refused command, as the page that posted it should show it."""

    form: str
    field: str | None
    message: str
    # The input beside which the message goes ("to_day", "count-<unit id>", "form").
    anchor: str
    # What was posted, to fill the form in again.
    # (``dataclasses.field``: the class's own ``field`` hides the bare name here.)
    values: dict[str, str] = dataclasses.field(default_factory=dict)
    # The page to show it on; another page leaves it for its own.
    path: str = ""


def _posted(data: Mapping[str, Any]) -> dict[str, str]:
    return {k: str(v) for k, v in data.items() if k != "csrfmiddlewaretoken"}


def remember_refusal(
    request: HttpRequest,
    *,
    form: str,
    path: str,
    field: str | None,
    message: str,
    anchors: Iterable[str] = (),
    indexed: Mapping[str, list[str]] | None = None,
) -> None:
    """Keep a refusal for ``path``'s next rendering.

    ``anchors`` are the form's input names; ``indexed`` maps a list field the service was given
    ("assignments", "withdrawn") to the input name of each of its items, so an error on
    ``withdrawn.2`` lands beside the unit it is about.
    """
    anchor = WHOLE_FORM
    if field:
        head, _, rest = field.partition(".")
        index = rest.partition(".")[0]
        items = (indexed or {}).get(head)
        if items is not None and index.isdigit() and int(index) < len(items):
            anchor = items[int(index)]
        elif field in anchors:
            anchor = field
        elif head in anchors:
            anchor = head
    refusal = Refusal(
        form=form,
        field=field,
        message=message,
        anchor=anchor,
        values=_posted(request.POST),
        path=path,
    )
    request.session[REFUSAL_KEY] = asdict(refusal)


def refused(
    request: HttpRequest,
    error: CommandError,
    *,
    form: str,
    path: str,
    anchors: Iterable[str] = (),
    indexed: Mapping[str, list[str]] | None = None,
) -> None:
    remember_refusal(
        request,
        form=form,
        path=path,
        field=error.field,
        message=error.message,
        anchors=anchors,
        indexed=indexed,
    )


def invalid(request: HttpRequest, form: forms.Form, *, name: str, path: str) -> None:
    """Keep a form's first input error as a refusal beside its field."""
    field_name, errors = next(iter(form.errors.items()))
    remember_refusal(
        request,
        form=name,
        path=path,
        field=None if field_name == "__all__" else field_name,
        message=" ".join(str(e) for e in errors),
        anchors=form.fields.keys(),
    )


def take_refusal(request: HttpRequest) -> Refusal | None:
    """The refusal waiting for this page, once: showing it uses it up."""
    stored = request.session.get(REFUSAL_KEY)
    if not stored or stored.get("path") != request.path:
        return None
    del request.session[REFUSAL_KEY]
    return Refusal(**stored)


# --- The campaign's forms -------------------------------------------------------------------------


class CalendarForm(forms.Form):
    """Either how many days pass or the day to move to; the service refuses both or neither."""

    days = forms.IntegerField(required=False, min_value=1)
    to_day = forms.IntegerField(required=False, min_value=0)


class UnitMoveForm(forms.Form):
    unit = forms.UUIDField()
    to = forms.ChoiceField(choices=[(str(place), str(place)) for place in LOCATIONS])
    reason = forms.CharField(required=False, max_length=500)


class VoidForm(forms.Form):
    sequence = forms.IntegerField(min_value=1)
    reason = forms.CharField(required=False, max_length=500)


class PlatoonForm(forms.Form):
    unit = forms.UUIDField()


def count_input(unit_id: Any) -> str:
    return f"count-{unit_id}"


def squad_counts(
    data: Mapping[str, Any], squad_ids: Iterable[uuid.UUID]
) -> tuple[list[dict[str, Any]], str | None, str | None]:
    """The assignments the per-squad counts ask for, in roster order, skipping zeros; or the
    input and message of the first count that is not a whole number from 0."""
    assignments = []
    for squad_id in squad_ids:
        raw = str(data.get(count_input(squad_id), "") or "").strip()
        if raw in ("", "0"):
            continue
        if not raw.isdigit():
            return [], count_input(squad_id), "A count is a whole number from 0."
        assignments.append({"unit_id": squad_id, "count": int(raw)})
    if not assignments:
        return [], "assignments", "Give at least one squad some of the replacements."
    return assignments, None, None


# --- The battle's forms ---------------------------------------------------------------------------

FATES = ("withdrawn", "routed", "surrendered")


def objective_input(unit_id: Any) -> str:
    return f"objective-{unit_id}"


def fate_input(unit_id: Any) -> str:
    return f"fate-{unit_id}"


def regroup_input(merged_unit_id: Any) -> str:
    return f"regroup-stands-{merged_unit_id}"


@dataclass
class BattleOutcome:
    """What the end-of-battle form asks ``battles.services.battle_end`` for, and which input
    each unit of each list came from."""

    winner: str
    lists: dict[str, list[uuid.UUID]]
    inputs: dict[str, list[str]]


def battle_outcome(
    data: Mapping[str, Any],
    unit_ids: Iterable[uuid.UUID],
    merged_unit_ids: Iterable[uuid.UUID] = (),
) -> BattleOutcome:
    """Read the winner, the objective boxes, each unit's fate (a unit still fighting at the
    end has none) and the regroups the umpire keeps (SG2 P.17, option ``regroup_persists``)
    from the posted form, in the order the units fought."""
    lists: dict[str, list[uuid.UUID]] = {"objectives_met": [], **{f: [] for f in FATES}}
    lists["regroups_persisting"] = []
    inputs: dict[str, list[str]] = {name: [] for name in lists}
    for merged in merged_unit_ids:
        if data.get(regroup_input(merged)):
            lists["regroups_persisting"].append(merged)
            inputs["regroups_persisting"].append(regroup_input(merged))
    for unit_id in unit_ids:
        if data.get(objective_input(unit_id)):
            lists["objectives_met"].append(unit_id)
            inputs["objectives_met"].append(objective_input(unit_id))
        fate = data.get(fate_input(unit_id), "")
        if fate in FATES:
            lists[fate].append(unit_id)
            inputs[fate].append(fate_input(unit_id))
    return BattleOutcome(winner=str(data.get("winner", "")).strip(), lists=lists, inputs=inputs)
