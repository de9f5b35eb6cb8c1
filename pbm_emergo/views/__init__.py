"""Rendering: the Jinja environment of the reply texts, the board as a picture, reply sizes."""
