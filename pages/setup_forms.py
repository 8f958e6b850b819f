"""The forms of a campaign's set-up: creating it, its options, its rosters, its members and the
invitation links that bring them in.

As with the umpire's other forms (``pages/forms.py``), these check only the shape of what is
posted; every rule is the service's, and its refusal is put beside the field it names
(:func:`show_refusal`). The options form is made from the ruleset's option schema
(``rules.options.options_schema``), so an option the rules gain appears here with its help and
the book's default without a change to the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django import forms

from campaigns.invitation_links import DEFAULT_LINK_DAYS, MAX_LINK_DAYS
from eventlog.errors import CommandError
from rules.options import options_schema

# Option inputs are named as the service names an option in its refusals (``options.<name>``,
# ``options.<group>.<name>``), so a refusal lands beside its input without translation.
OPTION_PREFIX = "options."
YES_NO = {True: "yes", False: "no"}


def humane_name(name: str) -> str:
    return name.replace("_", " ").capitalize()


def shown(value: Any) -> str:
    if isinstance(value, bool):
        return YES_NO[value]
    if value is None:
        return "none"
    if isinstance(value, list):
        return ", ".join(humane_name(str(v)).lower() for v in value) or "none"
    return humane_name(str(value)).lower() if isinstance(value, str) else str(value)


@dataclass(frozen=True)
class OptionInput:
    """One option as the form shows it: its input, what it means and the book's default."""

    name: str  # the input's name, "options.<path>"
    label: str
    help: str
    default: str
    # Whose default it is: the book's, or Muster's for a setting neither book has.
    default_of: str
    applies_to: str | None
    kind: str  # "boolean", "integer", "choice" or "choices"


@dataclass(frozen=True)
class OptionGroup:
    """Options shown together: the top-level ones, or a nested group such as repair times."""

    name: str
    label: str
    help: str
    inputs: list[OptionInput]


def _field_of(schema: dict[str, Any]) -> tuple[forms.Field, str]:
    types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    nullable = "null" in types
    kind = next(t for t in types if t != "null")
    if kind == "boolean":
        return forms.BooleanField(required=False), "boolean"
    if kind == "array":
        item = schema["items"]
        coerce_item = int if item["type"] == "integer" else str
        return (
            forms.TypedMultipleChoiceField(
                choices=[(str(v), humane_name(str(v))) for v in item["enum"]],
                coerce=coerce_item,
                required=False,
                widget=forms.CheckboxSelectMultiple,
            ),
            "choices",
        )
    if "enum" in schema:
        values = [v for v in schema["enum"] if v is not None]
        choices = [(str(v), humane_name(str(v))) for v in values]
        if nullable:
            choices.insert(0, ("", "None"))
        coerce = int if kind == "integer" else str
        return (
            forms.TypedChoiceField(
                choices=choices, coerce=coerce, required=not nullable, empty_value=None
            ),
            "choice",
        )
    # Bounds are shown to the browser but checked by the service, whose message is the one shown.
    attrs = {
        bound: schema[bound] for bound in ("minimum", "maximum") if schema.get(bound) is not None
    }
    widget = forms.NumberInput(attrs={k[:3]: v for k, v in attrs.items()})
    return forms.IntegerField(required=not nullable, widget=widget), "integer"


class OptionsForm(forms.Form):
    """Every option of a ruleset, initially the values given (the book's defaults when none)."""

    def __init__(
        self, ruleset: str, *args: Any, values: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        schema = options_schema(ruleset)
        self.groups: list[OptionGroup] = []
        top = OptionGroup(name="options", label="", help="", inputs=[])
        self.groups.append(top)
        for name, prop in schema["properties"].items():
            current = (values or {}).get(name, prop["default"])
            if prop.get("type") == "object":
                group = OptionGroup(
                    name=f"{OPTION_PREFIX}{name}",
                    label=humane_name(name),
                    help=prop["description"],
                    inputs=[],
                )
                for sub, sub_prop in prop["properties"].items():
                    sub_value = (current or {}).get(sub, sub_prop["default"])
                    group.inputs.append(self._add(f"{name}.{sub}", sub, sub_prop, sub_value))
                self.groups.append(group)
            else:
                top.inputs.append(self._add(name, name, prop, current))

    def _add(self, path: str, name: str, prop: dict[str, Any], value: Any) -> OptionInput:
        field, kind = _field_of(prop)
        field.label = humane_name(name)
        input_name = f"{OPTION_PREFIX}{path}"
        # The input's help is read out with it (the template gives the help this id).
        field.widget.attrs["aria-describedby"] = f"{input_name}-help"
        self.fields[input_name] = field
        self.initial[input_name] = [str(v) for v in value] if isinstance(value, list) else value
        return OptionInput(
            name=input_name,
            label=humane_name(name),
            help=prop["description"],
            default=shown(prop["default"]),
            default_of="Muster's" if prop["description"].endswith("(Muster)") else "The book's",
            applies_to=prop.get("x-applies-to"),
            kind=kind,
        )

    def options(self) -> dict[str, Any]:
        """The options posted, nested as the service takes them."""
        chosen: dict[str, Any] = {}
        for input_name, value in self.cleaned_data.items():
            if not input_name.startswith(OPTION_PREFIX):
                continue
            head, _, sub = input_name[len(OPTION_PREFIX) :].partition(".")
            if sub:
                chosen.setdefault(head, {})[sub] = value
            else:
                chosen[head] = value
        return chosen

    def bound_inputs(self) -> list[dict[str, Any]]:
        """The groups with each input's bound field, for the template."""
        return [
            {
                "group": group,
                "inputs": [{"option": o, "field": self[o.name]} for o in group.inputs],
            }
            for group in self.groups
        ]


class CampaignForm(forms.Form):
    # Not required here: the service's own "A campaign needs a name." is the message shown.
    name = forms.CharField(required=False, max_length=200)
    ruleset = forms.CharField(widget=forms.HiddenInput)


class OptionsChangeForm(forms.Form):
    reason = forms.CharField(required=False, max_length=500)


class RosterUploadForm(forms.Form):
    roster = forms.FileField(
        label="Roster file (YAML or JSON)",
        widget=forms.ClearableFileInput(attrs={"accept": ".yaml,.yml,.json"}),
    )


class InvitationLinkForm(forms.Form):
    role = forms.ChoiceField(choices=[("player", "Player"), ("observer", "Observer")])
    force = forms.UUIDField(required=False)
    expires_in_days = forms.IntegerField(
        initial=DEFAULT_LINK_DAYS,
        label="Works for (days)",
        widget=forms.NumberInput(attrs={"min": 1, "max": MAX_LINK_DAYS}),
    )


class MemberInviteForm(forms.Form):
    # The service's "Say whom to invite." is the message shown for an empty one.
    username = forms.CharField(required=False, max_length=150)
    role = forms.ChoiceField(
        choices=[("player", "Player"), ("observer", "Observer"), ("umpire", "Umpire")]
    )
    force = forms.UUIDField(required=False)


class MemberChangeForm(forms.Form):
    role = forms.ChoiceField(
        choices=[("umpire", "Umpire"), ("player", "Player"), ("observer", "Observer")]
    )
    force = forms.UUIDField(required=False)


class MemberRemoveForm(forms.Form):
    reason = forms.CharField(required=False, max_length=500)


class JoinForm(forms.Form):
    # The service checks the username and the password (its validators): its messages are shown.
    username = forms.CharField(
        required=False,
        max_length=150,
        widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none"}),
    )
    password = forms.CharField(
        required=False,
        max_length=4096,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password_again = forms.CharField(
        required=False,
        max_length=4096,
        strip=False,
        label="Password again",
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("password") != data.get("password_again"):
            self.add_error("password_again", "The two passwords differ.")
        return data


def show_refusal(
    form: forms.Form, error: CommandError, *, fields: dict[str, str] | None = None
) -> None:
    """Put the service's refusal beside the input it names (``fields`` maps a service field to
    an input of another name, ``force_ids`` to ``force``, say). An item of a list
    (``options.x[0]``) goes beside the list; a field the form has no input for, or none, is
    shown at the top of the form."""
    named = re.sub(r"\[\d+\]", "", error.field or "")
    parts = named.split(".")
    # The longest leading part of the field's path that the form has an input for.
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        candidate = (fields or {}).get(candidate, candidate)
        if candidate in form.fields:
            form.add_error(candidate, error.message)
            return
    form.add_error(None, error.message)
