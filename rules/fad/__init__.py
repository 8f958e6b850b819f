"""Fast and Dirty (Ivan Sorensen) procedures: its campaign system and the Recover Wounded rule."""
