"""The application shell: each operation reads through a session, asks the game (pure
decisions in :mod:`pbm_emergo.game`) or decides itself, renders, and leaves its writes for
one short transaction. Used by mail, robots, web and admin."""
