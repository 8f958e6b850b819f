"""``manage.py import_force``: loads a roster file, or says exactly what is wrong with it."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from eventlog import store
from rosters.models import Force, Trooper, Unit
from tests.rosters.conftest import PLATOON

pytestmark = pytest.mark.django_db


def test_a_roster_file_is_loaded_and_counted(campaign, tmp_path):
    path = tmp_path / "platoon.yaml"
    path.write_text(PLATOON)
    out = io.StringIO()
    call_command("import_force", str(path), "--campaign", str(campaign.id), stdout=out)
    force = Force.objects.get(campaign_id=campaign.id)
    assert force.source == "platoon.yaml"
    assert Unit.objects.filter(force_id=force.id).count() == 4
    assert Trooper.objects.filter(force_id=force.id).count() == 11
    assert "4 units, 11 troopers, 1 vehicles" in out.getvalue()


def test_a_broken_file_names_the_line_and_field_and_loads_nothing(campaign, tmp_path):
    path = tmp_path / "platoon.yaml"
    path.write_text(PLATOON.replace("role: medic", "role: surgeon"))
    before = store.last_sequence(campaign.id)
    with pytest.raises(CommandError) as refused:
        call_command("import_force", str(path), "--campaign", str(campaign.id))
    assert "platoon.yaml:17: units[0].units[0].troopers[2].role:" in str(refused.value)
    assert store.last_sequence(campaign.id) == before


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["missing.yaml", "--campaign", "00000000-0000-0000-0000-000000000001"], "Cannot read"),
        (["{file}", "--campaign", "nope"], "is not a campaign id"),
        (["{file}", "--campaign", "00000000-0000-0000-0000-000000000001"], "no campaign"),
        (["{file}", "--campaign", "{campaign}", "--as-user", "nobody"], "not an umpire"),
    ],
)
def test_bad_arguments_are_refused_clearly(campaign, tmp_path, arguments, message):
    path = tmp_path / "platoon.yaml"
    path.write_text(PLATOON)
    filled = [a.format(file=path, campaign=campaign.id) for a in arguments]
    with pytest.raises(CommandError, match=message):
        call_command("import_force", *filled)
