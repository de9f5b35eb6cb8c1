"""The read models: what the mail commands, the web view and ``pbm-emergo admin`` show,
read the same way for all three. One player row (``PlayerLine``), one count of active boards
per player (``active_board_counts``), one list of finished games (``finished_games``), one
standings rule (``standings``, see :mod:`pbm_emergo.db.reads.rating_table`).

- :mod:`pbm_emergo.db.reads.boards`: boards in lists, their moves, the finished games, the
  operator's view of a board.
- :mod:`pbm_emergo.db.reads.players`: the player row, the active-board count, the
  operator's view of a player and their account.
- :mod:`pbm_emergo.db.reads.rating_table`: the standings.
- :mod:`pbm_emergo.db.reads.analysis`: a board's stored analysis, as the board page shows it.
- :mod:`pbm_emergo.db.reads.mail`: the mail queues as the operator lists them, and the
  figures of ``admin stats`` and the metrics.
- :mod:`pbm_emergo.db.reads.robots`: what the robots' runner reads (the boards waiting for
  a robot, a board as a robot's task reads it, a board's moves).

Every function takes the caller's ``Session``, opens no transaction, writes nothing, and
returns plain frozen rows; use them as ``reads.standings(session, now)``.
"""

from __future__ import annotations

from pbm_emergo.db.reads.analysis import BoardAnalysis, MoveNote, board_analysis
from pbm_emergo.db.reads.boards import (
    HISTORY_LIMIT,
    BoardLine,
    BoardOutcome,
    BoardReport,
    BoardRow,
    MoveLine,
    MoveRow,
    RatingChanges,
    UnknownPlayerError,
    active_board_numbers,
    active_boards,
    board_line,
    board_moves,
    board_report,
    boards_of,
    count_finished,
    finished_games,
    game_rows,
    listed_boards,
)
from pbm_emergo.db.reads.mail import (
    QUEUE_PREFIXES,
    QUEUES,
    MailPage,
    MailRow,
    Queue,
    QueueFigures,
    Totals,
    mail_page,
    mail_rows,
    message_queues,
    message_status,
    queue_figures,
    totals,
)
from pbm_emergo.db.reads.players import (
    LoginFailureRow,
    PlayerLine,
    PlayerReport,
    PlayerRow,
    RatingRow,
    active_board_counts,
    player,
    player_line,
    player_report,
    player_row,
    player_rows,
    rating_history,
)
from pbm_emergo.db.reads.rating_table import (
    ESTABLISHED,
    INACTIVE,
    INACTIVE_DAYS,
    PROVISIONAL,
    SECTION_TITLES,
    SECTIONS,
    StandingRow,
    by_section,
    standings,
)

__all__ = [
    "ESTABLISHED",
    "HISTORY_LIMIT",
    "INACTIVE",
    "INACTIVE_DAYS",
    "PROVISIONAL",
    "QUEUES",
    "QUEUE_PREFIXES",
    "SECTIONS",
    "SECTION_TITLES",
    "BoardAnalysis",
    "BoardLine",
    "BoardOutcome",
    "BoardReport",
    "BoardRow",
    "LoginFailureRow",
    "MailPage",
    "MailRow",
    "MoveLine",
    "MoveNote",
    "MoveRow",
    "PlayerLine",
    "PlayerReport",
    "PlayerRow",
    "Queue",
    "QueueFigures",
    "RatingChanges",
    "RatingRow",
    "StandingRow",
    "Totals",
    "UnknownPlayerError",
    "active_board_counts",
    "active_board_numbers",
    "active_boards",
    "board_analysis",
    "board_line",
    "board_moves",
    "board_report",
    "by_section",
    "boards_of",
    "listed_boards",
    "count_finished",
    "finished_games",
    "game_rows",
    "mail_page",
    "mail_rows",
    "message_queues",
    "message_status",
    "player",
    "player_line",
    "player_report",
    "player_row",
    "player_rows",
    "rating_history",
    "queue_figures",
    "standings",
    "totals",
]
