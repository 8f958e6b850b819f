"""The dice prompt reads its parameters from the query string, where every value is text: a
parameter the action takes as a number from a fixed set (the impact die) or as a number is read
as one, as a client generated from the schema sends it."""

from __future__ import annotations

import pytest

from tests.battles.conftest import squads

pytestmark = pytest.mark.django_db


def test_an_impact_die_in_the_query_string_is_the_die_of_that_size(umpire_api, battle, forces):
    red = squads(forces["Red"])[0]
    url = f"/api/v1/battles/{battle['id']}/actions/casualties/"
    query = {"unit_id": str(red.id), "mode": "allocate", "hits": "2", "impact_die": "6"}
    response = umpire_api.get(url, query)
    assert response.status_code == 200, response.json()
    dice = response.json()["dice"]
    assert dice
    assert 6 in {die["die"] for die in dice}


def test_text_that_is_not_a_number_is_refused_with_the_field_named(umpire_api, battle, forces):
    red = squads(forces["Red"])[0]
    url = f"/api/v1/battles/{battle['id']}/actions/casualties/"
    query = {"unit_id": str(red.id), "mode": "allocate", "hits": "two", "impact_die": "6"}
    response = umpire_api.get(url, query)
    assert (response.status_code, response.json()["field"]) == (400, "hits")
