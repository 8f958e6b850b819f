"""Create the demo campaign: two forces from the book's first scenario, three linked battles
played with the server's dice from a fixed seed, after-action and rest between them.

Everything goes through the same services the API uses, so the demo is also a walk through the
campaign loop. The same seed gives the same campaign.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from celery import current_app as celery_app
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts.tokens import token_issue
from battles import actions
from battles import services as battles
from battles.after_action import after_action_resolve
from battles.models import Battle, BattleSide, Participant
from battles.reports.commands import battle_report_file, report_point_decide
from battles.reports.reconciliation import logged_status, on_table, trooper_point
from battles.review import battle_casualties
from campaigns import services
from campaigns.calendar import calendar_advance
from campaigns.models import Campaign, Membership
from campaigns.visibility import reader_of
from eventlog import store
from eventlog.errors import CommandError as Refused
from rosters import selectors
from rosters import services as rosters
from rosters.models import Force, Trooper, Unit
from rosters.replacements import platoon_ledger, replacements_assign, replacements_request

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
DEMO_USERNAME = "umpire"
DEMO_PLAYER = "blue"
DEMO_PASSWORD = "muster-demo"
DEMO_CAMPAIGN = "Operation Long Night (demo)"
DEMO_FORCES = ("sg2-scenario-1-blue.yaml", "sg2-scenario-1-red.yaml")
DEMO_SEED = "5eed" * 16
BLUE_OBJECTIVE = "Hold the ground the battle is fought over"
# (name, day, winner): three battles in a line, each leading to the next.
DEMO_BATTLES = (
    ("Recon in force", 1, "Blue"),
    ("Hold the ford", 4, "Red"),
    ("Breakthrough at Kessler", 8, "Blue"),
)


def _user(username: str, *, staff: bool = False):
    User = get_user_model()
    user, created = User.objects.get_or_create(
        username=username, defaults={"email": f"{username}@example.org", "is_staff": staff}
    )
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save()
    return user


class Command(BaseCommand):
    help = "Create and play the demo campaign (three linked battles), then print a summary."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="Where it is served.")
        parser.add_argument(
            "--seed", default=DEMO_SEED, help="The campaign's dice seed (64 hex digits)."
        )

    def handle(self, *args, url: str, seed: str, **options) -> None:
        umpire = _user(DEMO_USERNAME, staff=True)
        _user(DEMO_PLAYER)
        # A fresh token each run (only its hash is kept, so an old one cannot be shown again).
        token = token_issue(user=umpire, name="demo")
        campaign = Campaign.objects.filter(name=DEMO_CAMPAIGN, umpire_id=umpire.pk).first()
        if campaign is None:
            # The demo plays its jobs in this process, in order, so the same seed replays it.
            eager = celery_app.conf.task_always_eager
            celery_app.conf.task_always_eager = True
            try:
                campaign = self.play(umpire, seed)
            except Refused as refusal:
                raise CommandError(f"The demo was refused: {refusal.message}") from None
            finally:
                celery_app.conf.task_always_eager = eager
        self.summary(campaign)
        self.stdout.write("")
        self.stdout.write(self.style.SUCCESS(f"Demo campaign: {campaign.name} ({campaign.id})"))
        self.stdout.write(f"  {store.last_sequence(campaign.id)} events in its log")
        self.stdout.write(
            f"  Log in as {DEMO_USERNAME} / {DEMO_PASSWORD}, API token {token.secret}"
        )
        self.stdout.write(f"  Player:   {DEMO_PLAYER} / {DEMO_PASSWORD} (commands the Blue force)")
        self.stdout.write(f"  API:      {url}/api/v1/campaigns/{campaign.id}/")
        self.stdout.write(f"  API docs: {url}/api/v1/docs/")
        self.stdout.write(f"  Health:   {url}/healthz")
        self.where_to_look(campaign, url)

    # --- Playing the campaign -----------------------------------------------------------------

    def play(self, umpire, seed: str) -> Campaign:
        campaign = services.campaign_create(name=DEMO_CAMPAIGN, seed=seed, actor=umpire)
        services.note_record(
            campaign=campaign,
            text="Day 0. Blue's recon platoon lands at the Kessler relay station at dusk.",
            actor=umpire,
        )
        for name in DEMO_FORCES:
            rosters.force_import_text(
                campaign=campaign,
                text=(EXAMPLES / name).read_text(encoding="utf-8"),
                source=name,
                actor=umpire,
            )
        blue = Force.objects.get(campaign_id=campaign.id, side="Blue")
        red = Force.objects.get(campaign_id=campaign.id, side="Red")
        # The umpire invites the player, and the demo accepts on its own player's behalf.
        invitation = services.member_invite(
            campaign=campaign,
            username=DEMO_PLAYER,
            role="player",
            force_ids=[blue.id],
            actor=umpire,
        )
        services.invitation_accept(
            invitation_id=invitation.id, actor=get_user_model().objects.get(username=DEMO_PLAYER)
        )

        planned: list[Battle] = []
        following = None
        for name, day, _ in reversed(DEMO_BATTLES):
            battle = battles.battle_plan(
                campaign=self.fresh(campaign),
                name=name,
                day=day,
                attacker="Blue",
                sides=[
                    {
                        "side": "Blue",
                        "force_ids": [blue.id],
                        "objectives": [BLUE_OBJECTIVE],
                        "casevac": {"on_call": True, "start_box": 1, "troop_capacity": 8},
                    },
                    {"side": "Red", "force_ids": [red.id]},
                ],
                next_on_attacker_win=following,
                next_on_defender_win=following,
                actor=umpire,
            )
            planned.insert(0, battle)
            following = battle.id
        for index, (battle, (_, day, winner)) in enumerate(zip(planned, DEMO_BATTLES, strict=True)):
            if self.fresh(campaign).day < day:
                calendar_advance(campaign=self.fresh(campaign), to_day=day, actor=umpire)
            self.fight(self.fresh(campaign), battle, winner, umpire)
            if index < len(planned) - 1:
                # After the last battle the wounded are still in hospital: the summary shows them.
                self.rest_and_refit(self.fresh(campaign), blue, umpire)
                self.rest_and_refit(self.fresh(campaign), red, umpire)
        return self.fresh(campaign)

    @staticmethod
    def fresh(campaign: Campaign) -> Campaign:
        return Campaign.objects.get(pk=campaign.pk)

    def fight(self, campaign: Campaign, battle: Battle, winner: str, umpire) -> None:
        # Always the same order (Blue's squads, then Red's, each in roster order), so the same
        # seed rolls the same dice for the same squads.
        ready = [
            unit
            for force in Force.objects.filter(campaign_id=campaign.id).order_by("raised_sequence")
            for unit in Unit.objects.filter(
                force_id=force.id, kind="squad", status="in_the_line"
            ).order_by("order")
        ]
        battle = battles.battle_commit(
            campaign=campaign, battle=battle, unit_ids=[u.id for u in ready], actor=umpire
        )
        battle = battles.battle_start(campaign=campaign, battle=battle, actor=umpire)
        by_unit = {p.unit_id: p for p in Participant.objects.filter(battle_id=battle.id)}
        fighting = [by_unit[unit.id] for unit in ready]
        for turn in range(2):
            for participant in fighting:
                if not self.act(campaign, battle, "casualties", umpire, {
                    "unit_id": str(participant.unit_id), "mode": "allocate",
                    "hits": 2 + turn, "impact_die": 6 + 2 * turn, "cover": "soft",
                }):  # fmt: skip
                    continue
                self.act(campaign, battle, "confidence_test", umpire, {
                    "unit_id": str(participant.unit_id),
                    "circumstances": ["casualties_from_fire"],
                })  # fmt: skip
                wounded = Trooper.objects.filter(unit_id=participant.unit_id, status="wounded")
                if wounded.exists():
                    self.act(campaign, battle, "medical_treatment", umpire, {
                        "unit_id": str(participant.unit_id),
                    })  # fmt: skip
            self.casevac(campaign, battle, fighting, umpire)
            battle = battles.turn_advance(campaign=campaign, battle=battle, actor=umpire)
        objectives = [p.unit_id for p in fighting if p.side == winner][:1]
        battle = battles.battle_end(
            campaign=campaign,
            battle=battle,
            winner=winner,
            objectives_met=objectives,
            actor=umpire,
        )
        if battle.name == DEMO_BATTLES[0][0]:
            self.report(battle, winner, umpire)
        after_action_resolve(campaign=campaign, battle=battle, dice=None, actor=umpire)

    def casevac(self, campaign, battle, fighting, umpire) -> None:
        """Blue's casevac (SG2 P.54): a squad leader with stabilised men calls it; once it has
        come in off the Inbound Chart it lands, takes his stabilised men aboard and flies out."""
        side = BattleSide.objects.get(key=f"{battle.id}:Blue")
        state = (side.casevac or {}).get("status", "none")
        blue = [p for p in fighting if p.side == "Blue"]
        waiting = {
            p.unit_id: list(
                Trooper.objects.filter(unit_id=p.unit_id, status="stabilised").order_by("order")
            )
            for p in blue
        }
        if state in ("on_call", "departed", "turned_back"):
            caller = next((unit for unit, men in waiting.items() if men), None)
            if caller is not None:
                self.act(campaign, battle, "casevac_call", umpire, {"unit_id": str(caller)})
        elif state == "called" and self.act(
            campaign, battle, "casevac_arrive", umpire, {"side": "Blue"}
        ):
            # Never more injured aboard than half the troop capacity (P.54).
            room = side.mission["casevac"]["troop_capacity"] // 2
            for unit, men in waiting.items():
                aboard = men[:room]
                if aboard and self.act(campaign, battle, "casevac_load", umpire, {
                    "unit_id": str(unit), "trooper_ids": [str(t.id) for t in aboard],
                }):  # fmt: skip
                    room -= len(aboard)
            self.act(campaign, battle, "casevac_depart", umpire, {"side": "Blue"})

    def report(self, battle: Battle, winner: str, umpire) -> None:
        """Blue's player files his report of the first battle: the objective met, and one of
        his men, whom the log has wounded, as killed. The umpire accepts the objective and
        keeps the log for the man (his medic reached him in time)."""
        player = get_user_model().objects.get(username=DEMO_PLAYER)
        blue_units = {
            str(unit_id)
            for unit_id in Participant.objects.filter(battle_id=battle.id, side="Blue").values_list(
                "unit_id", flat=True
            )
        }
        brought = [t for u, men in on_table(battle).items() if u in blue_units for t in men]
        # His men as the log has them, but for one the log has wounded, whom he saw killed.
        men = list(Trooper.objects.filter(id__in=brought).order_by("unit_id", "order"))
        hurt = next((t for t in men if logged_status(t) == "wounded"), None)
        said = [
            {"trooper_id": str(t.id), "status": "killed" if t == hurt else logged_status(t)}
            for t in men
            if t == hurt or logged_status(t) in ("wounded", "killed")
        ]
        report_id = battle_report_file(
            battle=battle,
            side="Blue",
            troopers=said,
            objectives=[{"side": "Blue", "objective": BLUE_OBJECTIVE, "met": winner == "Blue"}],
            notes="We took the station; I saw him go down and not get up.",
            actor=player,
        )
        report_point_decide(
            battle=battle,
            point=f"objective:Blue:{BLUE_OBJECTIVE}",
            decision="accept",
            report_id=report_id,
            actor=umpire,
        )
        if hurt is not None:
            report_point_decide(
                battle=battle,
                point=trooper_point(hurt.id),
                decision="reject",
                reason="His squad's medic reached him in time: the log stands.",
                actor=umpire,
            )

    def act(self, campaign, battle, name: str, umpire, params: dict[str, Any]) -> bool:
        """Perform a battle action with server dice; skip it if the state no longer allows it
        (a squad broken or destroyed earlier in the turn)."""
        battle = Battle.objects.get(pk=battle.pk)
        try:
            actions.action_perform(
                campaign=campaign, battle=battle, name=name, params=params, dice=None, actor=umpire
            )
        except Refused:
            return False
        return True

    def rest_and_refit(self, campaign: Campaign, force: Force, umpire) -> None:
        """Tired squads go back to a safe area; platoons there take replacements."""
        for unit in Unit.objects.filter(force_id=force.id, kind="squad").order_by("order"):
            if unit.status == "in_the_line" and unit.fatigue != "fresh":
                rosters.unit_move(
                    campaign=campaign, unit=unit, to="safe_area", reason="rest", actor=umpire
                )
        for platoon in Unit.objects.filter(force_id=force.id, kind="platoon"):
            try:
                replacements_request(campaign=campaign, platoon=platoon, dice=None, actor=umpire)
            except Refused:
                continue
            left = platoon_ledger(campaign.id, platoon.id).left
            squads = Unit.objects.filter(force_id=force.id, kind="squad", status="safe_area")
            assignments = []
            for squad in squads.order_by("order"):
                if left <= 0 or squad.quality == "elite":
                    break
                present = Trooper.objects.filter(unit_id=squad.id, status="fit").count()
                vacancies = max(squad.toe_strength - present, 0)
                if vacancies:
                    count = min(vacancies, left)
                    assignments.append({"unit_id": str(squad.id), "count": count})
                    left -= count
            if assignments:
                replacements_assign(
                    campaign=self.fresh(campaign),
                    platoon=platoon,
                    assignments=assignments,
                    dice=None,
                    actor=umpire,
                )
        campaign = self.fresh(campaign)
        calendar_advance(campaign=campaign, days=2, actor=umpire)
        for unit in Unit.objects.filter(force_id=force.id, kind="squad", status="safe_area"):
            rosters.unit_move(
                campaign=self.fresh(campaign),
                unit=unit,
                to="in_the_line",
                reason="back to the front",
                actor=umpire,
            )

    # --- Telling it ---------------------------------------------------------------------------

    def where_to_look(self, campaign: Campaign, url: str) -> None:
        """The pages that show what the campaign is about, each where the demo did it."""
        flown = next(iter(store.read(campaign.id, types=["battles.CasevacDeparted"])), None)
        rested = next(iter(store.read(campaign.id, types=["rosters.UnitRested"])), None)
        blue = Force.objects.get(campaign_id=campaign.id, side="Blue")
        platoon = Unit.objects.filter(force_id=blue.id, kind="platoon").order_by("order")
        self.stdout.write("  Where to look:")
        if flown is not None:
            battle = flown.payload["battle_id"]
            self.stdout.write(
                f"    Casevac (call, arrival, loading, departure) and medical treatment: "
                f"{url}/battles/{battle}/"
            )
        if rested is not None:
            self.stdout.write(
                f"    A unit's rest and recovery: {url}/units/{rested.payload['unit_id']}/"
            )
        first = platoon.first()
        if first is not None:
            self.stdout.write(
                f"    Replacements: {url}/campaigns/{campaign.id}/?platoon={first.id}#replacements"
            )
        reported = next(iter(store.read(campaign.id, types=["battles.ReportPointDecided"])), None)
        if reported is not None:
            battle = reported.payload["battle_id"]
            self.stdout.write(
                f"    A player's battle report and the umpire's reconciliation: "
                f"{url}/battles/{battle}/reconcile/ "
                f"(the player's view: {url}/battles/{battle}/report/)"
            )
        self.stdout.write(f"    What if? (branches): {url}/campaigns/{campaign.id}/branches/")

    def summary(self, campaign: Campaign) -> None:
        battles_fought = Battle.objects.filter(campaign_id=campaign.id).order_by("day")
        before = {}
        if battles_fought:
            # The squads as they stood before the first battle, from the log.
            upto = selectors.resolve_as_of(
                campaign.id, as_of=None, as_of_battle=str(battles_fought[0].id), side="before"
            )
            assert upto is not None  # a battle's bounds are a sequence, never "now"
            folded = selectors.FoldedRoster(campaign.id, upto)
            for squad in folded.rows.find(Unit, kind="squad"):
                fit_then = [t for t in folded.troopers(unit_id=squad["id"]) if t["status"] == "fit"]
                before[squad["id"]] = (squad["quality"], len(fit_then))
        self.stdout.write(f"{campaign.name}, day {campaign.day}")
        umpire = Membership.objects.get(campaign_id=campaign.id, user_id=campaign.umpire_id)
        for battle in battles_fought:
            self.stdout.write(
                f"  Day {battle.day}: {battle.name}: {battle.status}"
                + (f", won by {battle.winner}" if battle.winner else "")
            )
            for side in battle_casualties(battle, reader_of(umpire))["sides"]:
                tally = ", ".join(
                    f"{n} {kind}" for kind, n in side.items() if isinstance(n, int) and n
                )
                self.stdout.write(f"    {side['side']} casualties: {tally or 'none'}")
        self.stdout.write("  Units (quality, fit men; before -> now):")
        squads = [
            unit
            for force in Force.objects.filter(campaign_id=campaign.id).order_by("raised_sequence")
            for unit in Unit.objects.filter(force_id=force.id, kind="squad").order_by("order")
        ]
        for unit in squads:
            fit = Trooper.objects.filter(unit_id=unit.id, status="fit").count()
            was = before.get(str(unit.id))
            then = f"{was[0]}, {was[1]} -> " if was else ""
            self.stdout.write(
                f"    {unit.name}: {then}{unit.quality}, {fit} of {unit.toe_strength}, "
                f"{unit.fatigue}, {unit.status.replace('_', ' ')}"
            )
        statuses = ("dead", "evacuated", "captured")
        counts = {
            s: Trooper.objects.filter(campaign_id=campaign.id, status=s).count() for s in statuses
        }
        self.stdout.write("  Casualties: " + ", ".join(f"{n} {s}" for s, n in counts.items()))
        hospital = Trooper.objects.filter(campaign_id=campaign.id, status="in_hospital").order_by(
            "hospital_until_day", "name"
        )
        self.stdout.write(f"  In hospital: {hospital.count()}")
        for trooper in hospital:
            self.stdout.write(f"    {trooper.name}: back on day {trooper.hospital_until_day}")
