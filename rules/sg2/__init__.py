"""Stargrunt II (Ground Zero Games, 1996) procedures. Page numbers are the printed book's."""
