"""The game's decisions on values: frozen snapshots and requests in, typed changes and
events out.

Pure: it imports the standard library, :mod:`pbm_emergo.rules`, :mod:`pbm_emergo.robot` and
itself only (no database, no templates, no mail), so every decision is tested on plain values
in milliseconds. The shell around it (:mod:`pbm_emergo.app`) reads one snapshot, calls a
decision, renders its events and applies its changes.
"""
