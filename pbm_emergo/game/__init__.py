"""The game's decisions on values: frozen snapshots and requests in, typed changes and
events out.

Pure: it imports the standard library, :mod:`pbm_emergo.rules`, :mod:`pbm_emergo.robot` and
itself only (no database, no templates, no mail), so every decision is tested on plain values
in milliseconds. The shell around it (:mod:`pbm_emergo.app`) reads one snapshot, calls a
decision, renders its events and applies its changes.

- :mod:`pbm_emergo.game.board`: the board as read (``BoardSnapshot``, ``BoardState``,
  ``Seat``, ...) and the words the database stores (sides, statuses, how a move was played).
- :mod:`pbm_emergo.game.play`: ``decide_move`` (``emergo move``: a move, resign, draw
  offers and answers, undo), ``decide_robot_action``, ``resign_all``.
- :mod:`pbm_emergo.game.chain`: the queued and forced moves after a move; ``follow``.
- :mod:`pbm_emergo.game.decision`: ``Decision``, ``Refusal``, ``finish``.
- :mod:`pbm_emergo.game.changes`, :mod:`pbm_emergo.game.events`: what a decision stores
  (each change with what its re-check needs) and what it reports for the views.
- :mod:`pbm_emergo.game.ratings`: a finished rated game's rating changes as values (the
  Glicko-2 numbers come from :mod:`pbm_emergo.ratings`), provisional by the deviation,
  which games count.
- :mod:`pbm_emergo.game.clock`, :mod:`pbm_emergo.game.digest`: the clocks (thinking time,
  when the reminder and the loss on time come, a player's time zone) and the daily digest.
- :mod:`pbm_emergo.game.sentences`: the sentences decisions and board mails share.
"""
