"""Campaigns: the campaign itself, its ruleset and options, membership, journal and dice tray."""
