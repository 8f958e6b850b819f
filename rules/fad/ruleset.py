"""Fast and Dirty as a ruleset definition (FaD p.6 quality, p.13 resolve, p.11 squad leaders)."""

from __future__ import annotations

from rules.fad.options import FaDOptions
from rules.fad.scales import Quality, Resolve, SquadLeaderExperience
from rules.rulesets import Ruleset, RulesetDefinition, register

FAD = register(
    RulesetDefinition(
        code=Ruleset.FAD.value,
        label=Ruleset.FAD.label,
        options_type=FaDOptions,
        qualities=tuple(q.name.lower() for q in Quality),
        unit_ratings=("resolve",),
        required_ratings=("resolve",),
        rating_names={"resolve": tuple(r.name.lower() for r in Resolve)},
        # p.51: every squad leader starts Inexperienced unless raised.
        leader_experiences=tuple(e.name.lower() for e in SquadLeaderExperience),
        # p.66: campaign points bought between battles, reinforcements among them.
        procedures=frozenset({"campaign_points"}),
    )
)
