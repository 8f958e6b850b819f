"""Campaign archives: export, import into another installation, and the refusals
(campaigns/archive.py, docs/adr/0015-export-import-and-caching.md).

The campaign is the demo's (three linked battles with the server's dice, after-action, rest and
replacements), played in an installation of its own and exported with ``manage.py
export_campaign``; the tests load it here, play on, export it over HTTP and load it into a third,
empty installation, whose every read endpoint must answer exactly as this one does.
"""

from __future__ import annotations

import io
import json
import random
import typing
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from battles.models import Battle
from campaigns.archive import (
    CONTENT_TYPE,
    FORMAT,
    USER_ID_FIELDS,
    ArchiveRefused,
    archive_check,
)
from campaigns.models import Campaign, Invitation, Membership
from eventlog import catalogue, store
from eventlog.models import CommandRecord, Event, Job
from rosters.models import Force, Trooper, Unit, Vehicle
from tests.campaigns.installation import (
    Installation,
    empty_installation,
    read_all,
    read_in,
    read_urls,
)
from tests.factories import join_by_invitation

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="session")
def demo_archive(tmp_path_factory) -> Path:
    """The demo campaign, played in an installation of its own and exported with its seed."""
    var = tmp_path_factory.mktemp("demo-source")
    source = Installation(f"sqlite:///{var / 'muster.sqlite3'}", var)
    source.manage("migrate", "--no-input", "-v", "0")
    source.manage("demo")
    campaign = source.python(
        "from campaigns.models import Campaign; print(Campaign.objects.get().id)"
    )
    path = var / "demo.jsonl"
    done = source.manage(
        "export_campaign", campaign.strip(), "--include-seed", "--output", str(path)
    )
    # The progress bar and the summary are on standard error; standard output stays empty.
    assert "export: 100%" in done.stderr
    assert "and its dice seed (keep this file secret)" in done.stderr
    return path


def _lines(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.splitlines()]


def _import(path: Path, *args: str) -> str:
    out = StringIO()
    call_command("import_campaign", str(path), "--no-progress", *args, stdout=out)
    return out.getvalue()


def _nothing_written(before: tuple[int, int, int]) -> bool:
    return before == (
        Event.objects.count(),
        get_user_model().objects.count(),
        Campaign.objects.count(),
    )


def _counts() -> tuple[int, int, int]:
    return Event.objects.count(), get_user_model().objects.count(), Campaign.objects.count()


def _sample(values: typing.Iterable, count: int) -> list[str]:
    return sorted(str(value) for value in values)[:count]


def test_an_archive_loaded_into_an_empty_installation_answers_every_read_the_same(
    demo_archive, make_user, api_for, tmp_path
):
    umpire, blue = make_user("umpire"), make_user("blue")
    told = _import(demo_archive)
    campaign = Campaign.objects.get()
    assert f"Imported campaign Operation Long Night (demo) ({campaign.id})" in told
    assert "umpire: umpire (user" in told
    assert "blue: blue (user" in told
    assert {m.user_id: m.role for m in Membership.objects.filter(campaign_id=campaign.id)} == {
        umpire.pk: "umpire",
        blue.pk: "player",
    }
    assert Job.objects.filter(campaign_id=campaign.id).count() > 10
    assert CommandRecord.objects.filter(campaign_id=campaign.id).exists()

    # The campaign goes on here: a note, the server's dice from the imported seed, an observer,
    # and a voided note.
    umpire_api = api_for(umpire)
    base = f"/api/v1/campaigns/{campaign.id}"
    assert umpire_api.post(f"{base}/journal/", {"text": "Moved house."}).status_code == 201
    thrown = umpire_api.post(f"{base}/dice/", {"die": 6, "count": 3, "purpose": "weather"})
    assert thrown.status_code == 202, thrown.json()
    job = umpire_api.get(f"/api/v1/jobs/{thrown.json()['id']}/").json()
    assert job["status"] == "succeeded", job
    assert job["events"][0]["payload"]["rolls"][0]["source"] == "server"
    watcher = make_user("watcher")
    join_by_invitation(umpire_api, campaign.id, watcher, "observer")
    mistake = umpire_api.post(f"{base}/journal/", {"text": "Wrong day."})
    voided = umpire_api.post(
        f"{base}/voids/", {"sequence": mistake.json()["sequence"], "reason": "typo"}
    )
    assert voided.status_code == 201, voided.json()

    exported = umpire_api.get(f"{base}/export/?include_seed=true")
    assert exported.status_code == 200
    assert exported["Content-Type"] == CONTENT_TYPE
    assert exported["Cache-Control"] == "private, no-store"
    assert exported["Content-Disposition"].startswith('attachment; filename="campaign-')
    archive = b"".join(exported.streaming_content)
    manifest = _lines(archive)[0]
    assert manifest["format"] == FORMAT
    assert manifest["exported_by"] == "umpire"
    assert manifest["campaign"]["last_sequence"] == store.last_sequence(campaign.id)
    assert manifest["counts"]["event"] == store.last_sequence(campaign.id)
    assert manifest["catalogue"]["campaigns.CampaignCreated"] == 1
    moved = tmp_path / "moved.jsonl"
    moved.write_bytes(archive)

    battles = list(Battle.objects.filter(campaign_id=campaign.id).order_by("day"))
    last = store.last_sequence(campaign.id)
    ids = {
        "campaign_id": [str(campaign.id)],
        "force_id": _sample(
            Force.objects.filter(campaign_id=campaign.id).values_list("id", flat=True), 2
        ),
        "unit_id": _sample(
            Unit.objects.filter(campaign_id=campaign.id).values_list("id", flat=True), 3
        ),
        "trooper_id": _sample(
            Trooper.objects.filter(campaign_id=campaign.id).values_list("id", flat=True), 3
        ),
        "vehicle_id": _sample(
            Vehicle.objects.filter(campaign_id=campaign.id).values_list("id", flat=True), 2
        ),
        "battle_id": [str(battle.id) for battle in battles],
        "job_id": _sample(
            Job.objects.filter(campaign_id=campaign.id).values_list("id", flat=True), 3
        ),
        "user_id": [str(user.pk) for user in (umpire, blue, watcher)],
        "invitation_id": _sample(
            Invitation.objects.filter(campaign_id=campaign.id).values_list("id", flat=True), 2
        ),
    }
    urls = read_urls(ids, as_of=[last // 2], battle_ids=[str(battles[1].id)])
    assert len(urls) > 60
    readers = ["umpire", "blue"]
    here = read_all(urls, readers)
    assert sum(status == 200 for status, _ in here["umpire"].values()) > 50

    with empty_installation(tmp_path / "target") as target:
        # The same people have accounts there, with the same ids.
        people = [(user.pk, user.username) for user in (umpire, blue, watcher)]
        target.python(
            "from django.contrib.auth.models import User\n"
            f"for pk, name in {people!r}: User.objects.create_user(id=pk, username=name)"
        )
        loaded = target.manage("import_campaign", str(moved))
        assert "check: 100%" in loaded.stderr
        assert "import: 100%" in loaded.stderr
        assert "watcher: watcher (user" in loaded.stdout
        there = read_in(target, urls, readers)
        for reader in readers:
            for url in urls:
                assert there[reader][url] == here[reader][url], (reader, url)

        # Exported again there, it is the same archive, record for record.
        again = target.manage("export_campaign", str(campaign.id), "--include-seed")
        assert again.stdout.encode().split(b"\n")[1:] == archive.split(b"\n")[1:]


def test_a_changed_byte_anywhere_is_refused_and_nothing_is_loaded(demo_archive):
    """One byte changed, in the manifest, an event, a hash, a job, a user or the last newline:
    the check refuses it. Sampled: the whole archive is half a megabyte."""
    data = demo_archive.read_bytes()
    middle_of_each_kind: dict[str, int] = {}
    start = 0
    for line in data.split(b"\n")[:-1]:
        kind = json.loads(line).get("kind", "manifest")
        middle_of_each_kind.setdefault(kind, start + len(line) // 2)
        start += len(line) + 1
    assert set(middle_of_each_kind) == {"manifest", "event", "job", "command", "seed", "user"}
    hash_digit = data.index(b'"hash":"') + 12
    positions = [*middle_of_each_kind.values(), hash_digit, len(data) - 1, 0]
    positions += random.Random(15).sample(range(len(data)), 25)
    archive_check(io.BytesIO(data))  # unchanged, it passes
    for position in positions:
        changed = bytearray(data)
        # A newline becomes a space; any other byte changes its lowest bit.
        changed[position] = 0x20 if changed[position] == 0x0A else changed[position] ^ 0x01
        with pytest.raises(ArchiveRefused) as refused:
            archive_check(io.BytesIO(bytes(changed)))
        assert refused.value.code in {
            "archive.tampered",
            "archive.truncated",
            "archive.not_an_archive",  # the manifest's first bytes changed: no manifest is left
        }, position


def test_a_tampered_or_cut_archive_is_refused_over_http_and_on_the_command_line(
    demo_archive, make_user, api_for, tmp_path
):
    importer = make_user("newboss")
    api = api_for(importer)
    data = demo_archive.read_bytes()
    before = _counts()

    at = data.index(b'"name":"Operation') + 9  # the campaign's name, in the manifest
    renamed = data[:at] + b"Q" + data[at + 1 :]
    response = api.send("post", "/api/v1/campaigns/import/", renamed, CONTENT_TYPE)
    assert response.status_code == 422, response.json()
    assert response.json()["code"] == "archive.tampered"
    assert "manifest does not match its hash" in response.json()["message"]
    assert _nothing_written(before)

    lines = data.split(b"\n")
    without_last_line = b"\n".join(lines[:-2]) + b"\n"
    response = api.send("post", "/api/v1/campaigns/import/", without_last_line, CONTENT_TYPE)
    assert response.status_code == 422
    assert response.json()["code"] == "archive.truncated"
    assert response.json()["message"].startswith("The archive is cut short: it ends after")

    response = api.send("post", "/api/v1/campaigns/import/", data[: len(data) // 2], CONTENT_TYPE)
    assert response.status_code == 422
    assert (response.json()["code"], response.json()["field"]) == ("archive.truncated", "archive")
    assert "is incomplete" in response.json()["message"]
    assert _nothing_written(before)

    event_line = lines[5]
    at = data.index(event_line) + event_line.index(b'"sequence":5') + 11
    resequenced = data[:at] + b"6" + data[at + 1 :]
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(resequenced)
    with pytest.raises(CommandError, match="line 6 does not match its hash"):
        _import(cut)
    assert _nothing_written(before)

    response = api.send("post", "/api/v1/campaigns/import/", b"", CONTENT_TYPE)
    assert (response.status_code, response.json()["code"]) == (422, "archive.empty")
    response = api.send("post", "/api/v1/campaigns/import/", b"name,side\n", "text/csv")
    assert (response.status_code, response.json()["code"]) == (422, "archive.not_an_archive")
    assert _nothing_written(before)


def test_a_campaign_that_is_here_already_is_refused(demo_archive, make_user, api_for):
    make_user("umpire")
    _import(demo_archive)
    api = api_for(make_user("newboss"))
    before = _counts()
    response = api.send(
        "post", "/api/v1/campaigns/import/", demo_archive.read_bytes(), CONTENT_TYPE
    )
    assert response.status_code == 409
    assert response.json()["code"] == "archive.campaign_exists"
    assert _nothing_written(before)


def test_over_http_the_importer_takes_the_umpires_place_and_the_others_are_placeholders(
    demo_archive, make_user, api_for
):
    """Nobody becomes a member by someone else naming them: ``blue`` has an account here, but
    the import makes a placeholder of them, until the umpire hands the place over and blue
    accepts."""
    importer, blue = make_user("newboss"), make_user("blue")
    api = api_for(importer)
    response = api.send(
        "post", "/api/v1/campaigns/import/", demo_archive.read_bytes(), CONTENT_TYPE
    )
    assert response.status_code == 201, response.json()
    imported = response.json()
    campaign_id = imported["id"]
    assert response["Location"].endswith(f"/api/v1/campaigns/{campaign_id}/")
    assert imported["seed_included"] is True
    by_name = {user["archived_username"]: user for user in imported["users"]}
    assert by_name["umpire"]["user_id"] == importer.pk
    assert by_name["umpire"]["placeholder"] is False
    placeholder = by_name["blue"]
    assert placeholder["placeholder"] is True
    assert placeholder["username"] == "blue~imported"
    account = get_user_model().objects.get(pk=placeholder["user_id"])
    assert not account.is_active
    assert not account.has_usable_password()

    members = api.get(f"/api/v1/campaigns/{campaign_id}/members/").json()["results"]
    assert [(m["user_id"], m["role"], m["placeholder"]) for m in members] == [
        (importer.pk, "umpire", False),
        (placeholder["user_id"], "player", True),
    ]
    forces = members[1]["force_ids"]
    assert api_for(blue).get(f"/api/v1/campaigns/{campaign_id}/").status_code == 404

    handed = api.post(
        f"/api/v1/campaigns/{campaign_id}/members/{placeholder['user_id']}/hand-over/",
        {"username": "blue"},
    )
    assert handed.status_code == 202, handed.json()
    assert handed.json()["replaces_user_id"] == placeholder["user_id"]
    assert (handed.json()["role"], handed.json()["force_ids"]) == ("player", forces)
    accepted = api_for(blue).post(f"/api/v1/invitations/{handed.json()['id']}/accept/")
    assert accepted.status_code == 201, accepted.json()

    members = api.get(f"/api/v1/campaigns/{campaign_id}/members/").json()["results"]
    assert [(m["username"], m["role"], m["force_ids"], m["placeholder"]) for m in members] == [
        ("newboss", "umpire", [], False),
        ("blue", "player", forces, False),
    ]
    history = [
        e["summary"] for e in api.get(f"/api/v1/campaigns/{campaign_id}/history/").json()["results"]
    ]
    assert any("to take the place of blue" in line for line in history[-3:]), history[-3:]
    assert api_for(blue).get(f"/api/v1/forces/{forces[0]}/").status_code == 200


def test_the_umpire_alone_exports_and_the_seed_only_when_asked(demo_archive, make_user, api_for):
    umpire, blue, stranger = make_user("umpire"), make_user("blue"), make_user("stranger")
    _import(demo_archive)
    campaign = Campaign.objects.get()
    url = f"/api/v1/campaigns/{campaign.id}/export/"
    assert api_for(blue).get(url).status_code == 403
    assert api_for(stranger).get(url).status_code == 404

    plain = _lines(b"".join(api_for(umpire).get(url).streaming_content))
    assert plain[0]["seed_included"] is False
    assert plain[0]["counts"]["seed"] == 0
    assert "seed" not in {record.get("kind") for record in plain[1:]}
    assert all("5eed5eed" not in json.dumps(record) for record in plain)
    with_seed = _lines(b"".join(api_for(umpire).get(f"{url}?include_seed=true").streaming_content))
    (seed,) = [record for record in with_seed if record.get("kind") == "seed"]
    assert seed["row"]["seed"] == "5eed" * 16


def test_every_user_id_in_the_catalogue_is_mapped_on_import():
    """A payload field that names a user holds an id of one installation: the import must map
    it, so it must be listed in USER_ID_FIELDS."""
    for spec in catalogue.all_types():
        named = {
            name
            for name, field in spec.payload_model.model_fields.items()
            if name.endswith(("user_id", "umpire_id", "_by_id", "actor_id"))
            and "int" in str(field.annotation)
        }
        assert named == set(USER_ID_FIELDS.get(spec.name, ())), spec.name
