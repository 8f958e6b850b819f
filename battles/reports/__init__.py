"""Players' battle reports and the umpire's reconciliation of them.

After a battle ends, each side's player files a report (:mod:`battles.reports.commands`): the
fate of the troopers of both sides as they saw it (fit, wounded or killed), whether each
objective of the sides' missions was met, and notes. The umpire sees both reports beside what
the log holds, point by point (:mod:`battles.reports.reconciliation`), and decides each point
that a report makes: *accept* a report's claim, *correct* it to another value, or *reject* the
reports and keep the log. A decided loss the log does not hold yet is appended as the casualty
event of the campaign's ruleset, with the report it came from in its payload; every report that
made a claim on the point receives the decision, which its side's players read.

A report, and the decision on it, are seen by the umpires and the players of the report's side
only (the command records them hidden from everyone else); the casualties a decision appends are
battle events like any other.
"""

from battles.reports import commands, events, projection  # noqa: F401
