"""pbm-emergo: a play-by-email server for the board game Emergo.

The rules engine lives in :mod:`pbm_emergo.rules` and imports only the standard library;
importing this package does not load the server parts.
"""

__version__ = "0.1.0"
