"""Rosters: forces, units, troopers and vehicles as projections of the log."""
