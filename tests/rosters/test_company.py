"""The book's sample reinforced combat company (SG2 P.8), loaded through HTTP."""

from __future__ import annotations

from pathlib import Path

import pytest

from rosters.models import Trooper, Unit, Vehicle
from rosters.roster_file import count_troopers, count_vehicles, iter_units, parse_roster

pytestmark = pytest.mark.django_db

COMPANY = Path(__file__).resolve().parents[2] / "examples" / "sg2-reinforced-combat-company.yaml"


@pytest.fixture
def company(umpire_api, campaign):
    text = COMPANY.read_text()
    response = umpire_api.post(
        f"/api/v1/campaigns/{campaign.id}/forces/", {"roster": text, "source": COMPANY.name}
    )
    assert response.status_code == 201, response.json()
    return response.json(), parse_roster(text, ruleset="sg2", source=COMPANY.name)


def test_importing_the_sample_company_yields_exactly_the_file(company):
    force, spec = company
    assert Unit.objects.filter(force_id=force["id"]).count() == len(list(iter_units(spec))) == 25
    assert Trooper.objects.filter(force_id=force["id"]).count() == count_troopers(spec) == 113
    assert Vehicle.objects.filter(force_id=force["id"]).count() == count_vehicles(spec) == 19
    assert force["trooper_count"] == 113
    names = sorted(Trooper.objects.filter(force_id=force["id"]).values_list("name", flat=True))
    expected = sorted(trooper.name for entry in iter_units(spec) for trooper in entry.unit.troopers)
    assert names == expected


def test_roster_reads_cost_the_same_queries_whatever_the_force_size(
    company, umpire_api, django_assert_max_num_queries
):
    force, _ = company
    # Authentication, membership, and one query each for the force, units, troopers, vehicles.
    with django_assert_max_num_queries(8):
        assert umpire_api.get(f"/api/v1/forces/{force['id']}/").status_code == 200
    unit = Unit.objects.filter(force_id=force["id"], kind="squad").first()
    assert unit is not None
    with django_assert_max_num_queries(8):
        assert umpire_api.get(f"/api/v1/units/{unit.id}/").status_code == 200
    with django_assert_max_num_queries(8):
        assert umpire_api.get(f"/api/v1/units/{unit.id}/history/").status_code == 200
    trooper = Trooper.objects.filter(force_id=force["id"]).first()
    assert trooper is not None
    with django_assert_max_num_queries(8):
        assert umpire_api.get(f"/api/v1/troopers/{trooper.id}/").status_code == 200
    # A second force does not add queries to the campaign's force list.
    forces_url = f"/api/v1/campaigns/{force['campaign_id']}/forces/"
    with django_assert_max_num_queries(6):
        assert umpire_api.get(forces_url).json()["count"] == 1
    umpire_api.post(forces_url, {"roster": COMPANY.read_text()})
    with django_assert_max_num_queries(6):
        assert umpire_api.get(forces_url).json()["count"] == 2
