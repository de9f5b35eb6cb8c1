"""The application layer: the game's operations on plain values, for mail, robots, web and admin."""
