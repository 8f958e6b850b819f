"""Battles: lifecycle, participants and battle actions as commands that append events."""
