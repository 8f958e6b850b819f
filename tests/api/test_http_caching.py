"""Conditional and compressed reads (config/http_cache.py): every API read has an ETag, a repeated
read that names it is a 304 without a body, an answer as of a sequence the campaign has reached
is immutable, and JSON reads are gzipped for clients that accept it."""

from __future__ import annotations

import gzip
import json

import pytest

from config.http_cache import PINNED_CACHE_CONTROL, REVALIDATE_CACHE_CONTROL
from eventlog import store

pytestmark = pytest.mark.django_db

RED = """\
name: Red militia
side: Red
units:
  - name: Red Squad
    kind: squad
    quality: green
    leadership: 3
    troopers:
      - {name: Boss Red, role: leader, armour_die: 4}
      - {name: Gun Red, armour_die: 4}
"""


@pytest.fixture
def base(umpire_api):
    campaign = umpire_api.post("/api/v1/campaigns/", {"name": "Kessler Ridge"}).json()
    base = f"/api/v1/campaigns/{campaign['id']}"
    for threshold in (6, 7):
        _change_options(umpire_api, base, threshold)
    return base


def _change_options(api, base: str, threshold: int) -> None:
    changed = api.patch(
        f"{base}/options/",
        {"changes": {"quality_threshold_green_regular": threshold}, "reason": "Rarer veterans."},
    )
    assert changed.status_code == 200, changed.json()


def test_a_read_carries_a_strong_etag_of_its_body_and_asks_to_be_revalidated(umpire_api, base):
    response = umpire_api.get(f"{base}/history/")
    assert response.status_code == 200
    etag = response["ETag"]
    assert etag.startswith('"')  # strong: not a weak W/ tag
    assert len(etag) == 66  # a quoted SHA-256
    assert response["Cache-Control"] == REVALIDATE_CACHE_CONTROL == "private, no-cache"
    assert {"Authorization", "Cookie"} <= {v.strip() for v in response["Vary"].split(",")}
    assert umpire_api.get(f"{base}/history/")["ETag"] == etag


def test_a_repeated_read_with_its_etag_is_not_modified_until_the_campaign_changes(umpire_api, base):
    first = umpire_api.get(f"{base}/history/")
    again = umpire_api.get(f"{base}/history/", **{"If-None-Match": first["ETag"]})
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == first["ETag"]
    assert again["Cache-Control"] == "private, no-cache"

    _change_options(umpire_api, base, 5)
    changed = umpire_api.get(f"{base}/history/", **{"If-None-Match": first["ETag"]})
    assert changed.status_code == 200
    assert changed["ETag"] != first["ETag"]
    assert len(changed.json()["results"]) == len(first.json()["results"]) + 1


def test_an_answer_as_of_a_reached_sequence_is_immutable(umpire_api, base):
    last = store.last_sequence(_campaign_id(base))
    for url in (f"{base}/?as_of=2", f"{base}/history/?as_of=2", f"{base}/?as_of={last}"):
        response = umpire_api.get(url)
        assert response.status_code == 200, url
        assert response["Cache-Control"] == PINNED_CACHE_CONTROL, url
        assert PINNED_CACHE_CONTROL == "private, max-age=31536000, immutable"
        repeated = umpire_api.get(url, **{"If-None-Match": response["ETag"]})
        assert repeated.status_code == 304
        assert repeated["Cache-Control"] == PINNED_CACHE_CONTROL

    # Beyond the end of the log, or now, the answer will change: no immutable.
    for url in (f"{base}/?as_of={last + 1}", f"{base}/", f"{base}/history/"):
        assert umpire_api.get(url)["Cache-Control"] == "private, no-cache", url


def test_a_roster_as_of_a_reached_sequence_is_immutable(umpire_api, base):
    force = umpire_api.post(f"{base}/forces/", {"roster": RED}).json()
    last = store.last_sequence(_campaign_id(base))
    pinned = umpire_api.get(f"/api/v1/forces/{force['id']}/", {"as_of": last})
    assert pinned.status_code == 200, pinned.json()
    assert pinned["Cache-Control"] == PINNED_CACHE_CONTROL
    assert umpire_api.get(f"/api/v1/forces/{force['id']}/")["Cache-Control"] == "private, no-cache"
    refused = umpire_api.get(f"/api/v1/forces/{force['id']}/", {"as_of": "x"})
    assert refused.status_code == 400
    assert refused["Cache-Control"] == "private, no-cache"
    assert "ETag" not in refused


def test_json_reads_are_gzipped_for_clients_that_accept_it(umpire_api, base):
    plain = umpire_api.get(f"{base}/events/")
    zipped = umpire_api.get(f"{base}/events/", **{"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in plain
    assert zipped["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(zipped.content)) == plain.json()
    assert len(zipped.content) < len(plain.content) / 2
    assert "Accept-Encoding" in zipped["Vary"]
    # The tag of the compressed answer is the body's, marked weak as HTTP asks; it still matches.
    assert zipped["ETag"] == f"W/{plain['ETag']}"
    again = umpire_api.get(
        f"{base}/events/", **{"Accept-Encoding": "gzip", "If-None-Match": zipped["ETag"]}
    )
    assert again.status_code == 304


def test_writes_and_pages_are_not_compressed(umpire_api, client, umpire, base):
    written = umpire_api.client.patch(
        f"{base}/options/",
        {"changes": {"quality_threshold_green_regular": 4}, "reason": "A long reason. " * 30},
        format="json",
        HTTP_ACCEPT_ENCODING="gzip",
    )
    assert written.status_code == 200, written.json()
    assert len(written.content) > 1000
    assert "Content-Encoding" not in written
    assert "ETag" not in written
    client.force_login(umpire)
    page = client.get("/", HTTP_ACCEPT_ENCODING="gzip")
    assert "Content-Encoding" not in page


def _campaign_id(base: str):
    import uuid

    return uuid.UUID(base.rstrip("/").rsplit("/", 1)[1])
