"""Why the game refuses a move, as a value (:class:`~pbm_emergo.rules.reasons.Reason`), so
that the shell can say it in the player's language; ``str()`` of it is the English sentence
of :data:`TEXTS`."""

from __future__ import annotations

from pbm_emergo.rules.reasons import Reason

__all__ = ["TEXTS", "refusal"]

TEXTS: dict[str, str | tuple[str, str]] = {
    "not_on_board": (
        "%(userid)s does not play on board %(board)s: it is %(white)s against %(black)s."
    ),
    "stale_guard": "Board %(board)s is at move %(expected)s, not move %(given)s: nothing was done.",
    "not_your_turn": "It is not your turn on board %(board)s: it is %(userid)s's.",
    "ambiguous_move": (
        "%(move)s matches several capture routes on board %(board)s; write the whole route."
    ),
    "illegal_move": "%(move)s is not a legal move on board %(board)s now.",
    "draw_offered": (
        "You have already offered a draw on board %(board)s; wait for %(userid)s's answer."
    ),
    "undo_asked": (
        "You have already asked to take back a move on board %(board)s; wait for "
        "%(userid)s's answer."
    ),
    "nothing_to_undo": "You have no move to take back on board %(board)s.",
    "undo_pending": (
        "%(userid)s has asked to take back a move on board %(board)s; answer that first "
        "with accept or reject."
    ),
    "nothing_to_accept": (
        "%(userid)s has neither offered a draw nor asked to take back a move on board "
        "%(board)s, so there is nothing to accept."
    ),
    "nothing_to_reject": (
        "%(userid)s has neither offered a draw nor asked to take back a move on board "
        "%(board)s, so there is nothing to reject."
    ),
    "undo_void": "The request to take back a move on board %(board)s no longer fits the game.",
    "rematch_stranger": (
        "You did not play on board %(board)s: only its two players can ask for a rematch."
    ),
    "rematch_early": (
        "The game on board %(board)s is not over yet: a rematch follows a finished game."
    ),
    "submit_not_a_move": (
        "Only a move can be submitted, not '%(text)s': send 'emergo move %(board)s %(userid)s "
        "PASSWORD %(text)s' for that."
    ),
    "nothing_submitted": (
        "%(userid)s has no submitted move on board %(board)s: send 'emergo submit %(board)s "
        "%(userid)s PASSWORD MOVE' first."
    ),
    "submitted_dropped": (
        "Your submitted move %(move)s on board %(board)s was dropped: the board's moves "
        "changed after you submitted it. Nothing was played; submit again if you still want it."
    ),
    "not_a_board": "'%(word)s' is not a board number (boards are numbered from 101).",
    "queued_as": "it was queued as move %(given)s, but the next move is move %(expected)s.",
    # How a finished game ended (sentences.result_reason), and a move on a finished board.
    "won_eliminated": "%(winner)s (%(side)s) wins: %(loser)s has no men left.",
    "won_blocked": "%(winner)s (%(side)s) wins: %(loser)s is blocked and cannot move.",
    "won_no_entry": (
        "%(winner)s (%(side)s) wins: %(loser)s has men in hand but nowhere to enter them."
    ),
    "won_resigned": "%(winner)s (%(side)s) wins: %(loser)s resigned.",
    "won_forfeit": "%(winner)s (%(side)s) wins: %(loser)s did not move in time.",
    "won_adjudicated": "%(winner)s (%(side)s) wins: the server's operator adjudicated the game.",
    "won_other": "%(winner)s (%(side)s) wins: %(reason)s.",
    "voided": "The game is void: the server's operator annulled it (no result, no rating).",
    "drawn_repetition": "The game is a draw: the same position came up for the third time.",
    "drawn_agreed": "The game is a draw: both players agreed.",
    "drawn_blocked": (
        "The game is a draw: %(userid)s is blocked and cannot move (a draw under -blocked=draw)."
    ),
    "drawn_no_entry": (
        "The game is a draw: %(userid)s has men in hand but nowhere to enter them (a draw "
        "under -blocked=draw)."
    ),
    "drawn_adjudicated": "The game is a draw: the server's operator adjudicated the game.",
    "drawn_other": "The game is a draw: %(reason)s.",
    "game_is_over": "The game on board %(number)s is over: %(result)s",
    # a challenge's options, who starts its game, whether the challenged player takes it
    "option_unknown": (
        "Unknown option '%(word)s': the options are -unrated, -blocked=draw, "
        "--nagtime=DAYS, --forfeittime=DAYS, --totaltime=DAYS, -timebank=240h, "
        "-increment=36h and -weekends."
    ),
    "option_hours": (
        "The option %(word)s needs a time in hours (240h) or days (10d), at most "
        "%(most)s days; no board was started."
    ),
    "option_days": "The option %(word)s needs a number of days from %(floor)s to %(most)s.",
    "option_short_total": (
        "The option %(word)s is too short: the total thinking time of a game is at "
        "least %(floor)s days, so that nobody loses a game on time before a reminder "
        "can reach them; no board was started."
    ),
    "option_short_forfeit": (
        "The option %(word)s is too short: the forfeit time of a game is at least "
        "%(floor)s days, so that nobody loses a game on time before a reminder can "
        "reach them; no board was started."
    ),
    "nag_not_before_forfeit": (
        "The reminder time (--nagtime=%(nag)s) must be shorter than the forfeit time "
        "(--forfeittime=%(forfeit)s), so that the reminder comes before the game can "
        "be lost on time; no board was started."
    ),
    "challenge_same_player": "A game needs two different players.",
    "challenge_not_theirs": "Only %(white)s or %(black)s can start this game.",
    "challenge_untrusted": (
        "Your mail failed the DMARC check of its sender's domain, so its From "
        "address may be forged and cannot start a game; send the challenge from "
        "your registered address through your own mail provider."
    ),
    "challenge_not_from_them": (
        "Only %(white)s or %(black)s can start this game: send the challenge from "
        "one of their registered addresses."
    ),
    "challenge_refused": (
        "%(userid)s does not accept challenges at the moment, so no board was started."
    ),
    "challenge_over_limit": (
        "%(userid)s plays as many games as they want at the moment (%(num)s active "
        "board), so no board was started; try again when one of them has ended.",
        "%(userid)s plays as many games as they want at the moment (%(num)s active "
        "boards), so no board was started; try again when one of them has ended.",
    ),
    # a new account's userid and a new password
    "userid_not_allowed": (
        "The userid '%(userid)s' is not allowed: a userid has 2 to 16 characters "
        "(letters, digits, _ and -) and starts with a letter."
    ),
    "userid_reserved": "The userid '%(userid)s' is a reserved word; please choose another.",
    "userid_server_like": (
        "The userid '%(userid)s' looks like one of the server's own (its robots "
        "robot1 to robot3, its administrators, the server itself), and players would "
        "take it for one; please choose another."
    ),
    "password_length": "A password needs %(least)s to %(most)s characters (no spaces).",
    # moves in advance (emergo queue)
    "queue_your_turn": (
        "It is your turn on board %(number)s: play your move with 'emergo move %(number)s "
        "%(userid)s PASSWORD MOVE'. A move is queued only while the opponent is to move."
    ),
    "queue_mixed": (
        "A conditional queue has only items of the form OPPONENTMOVE=YOURMOVE "
        "(for example e4xe6=d5 c3=g7); a plain queued move stands alone."
    ),
    "queue_one": (
        "Queue one move (for example d5), or conditional items of the form "
        "OPPONENTMOVE=YOURMOVE."
    ),
    "queue_twice": "The queue names the opponent's move %(move)s twice.",
    "queue_over_after": "After %(move)s the game is over: there is nothing to answer.",
    "queue_guard": (
        "Board %(board)s is at move %(ply)s, so your queued move would be move "
        "%(number)s, not move %(guard)s: nothing was queued."
    ),
    "queue_theirs_ambiguous": (
        "The opponent's move %(move)s matches several capture routes (%(routes)s)."
    ),
    "queue_mine_ambiguous": (
        "Your answer %(move)s to %(theirs)s matches several capture routes (%(routes)s)."
    ),
    "queue_theirs_illegal": "The opponent's move %(move)s would not be legal: %(why)s",
    "queue_mine_illegal": "Your answer %(move)s to %(theirs)s would not be legal: %(why)s",
    "queue_theirs_invalid": "The opponent's move %(move)s is not a move: %(why)s",
    "queue_mine_invalid": "Your answer %(move)s to %(theirs)s is not a move: %(why)s",
    # subscriptions
    "subscribe_plays": "%(userid)s plays on board %(board)s and gets its mails anyway.",
    "subscribe_over": (
        "The game on board %(board)s is over: there is nothing more to watch "
        "('emergo show %(board)s' sends the board)."
    ),
    "unsubscribe_from_every": (
        "%(userid)s is subscribed to every board, so to board %(board)s too: "
        "'emergo unsubscribe all %(userid)s PASSWORD' ends that."
    ),
    "not_subscribed": "%(userid)s is not subscribed to board %(board)s.",
    # private notes, blocks, password resets
    "note_empty": (
        "The note is empty: write it after the password (emergo note BOARD USERID "
        "PASSWORD TEXT), or in the body of the mail."
    ),
    "note_too_long": "A note has at most %(most)s characters; this one has %(length)s.",
    "notes_full": "You have %(most)s notes on this board already, the most one player keeps.",
    "block_self": "You cannot block yourself.",
    "unblock_self": "You do not block yourself.",
    "not_blocked": "You do not block that player.",
    "reset_unknown": (
        "No password reset is waiting for this code: check that it is the code mailed to "
        "you after 'forgot'. Send 'forgot USERID' for a new code."
    ),
    "reset_used": (
        "This code was used at %(at)s, and a code works once. Send 'forgot USERID' for a "
        "new code."
    ),
    "reset_expired": (
        "This code expired at %(at)s (a code works for %(days)s day after it is mailed). "
        "Send 'forgot USERID' for a new code."
    ),
    # the one-line summaries of a move or a vote in a ``multiple`` report
    "summary_played": "played %(move)s on board %(board)s",
    "summary_auto": "%(userid)s's %(move)s (Auto)",
    "summary_forced": "%(userid)s's %(move)s (Forced)",
    "summary_then": "%(first)s; then %(then)s",
    "summary_ended": "%(moves)s; %(result)s",
    "summary_resigned": "resigned on board %(board)s",
    "summary_declined": "declined the game on board %(board)s; the board is removed",
    "summary_offered_draw": "offered a draw on board %(board)s",
    "summary_asked_undo_one": "asked to take back move %(first)s",
    "summary_asked_undo_many": "asked to take back moves %(first)s to %(last)s",
    "summary_rejected_draw": "rejected the draw offer on board %(board)s",
    "summary_rejected_undo": "rejected the request to take back a move on board %(board)s",
    "summary_agreed_draw": "agreed to a draw on board %(board)s",
    "summary_took_back_one": "took back move %(first)s on board %(board)s",
    "summary_took_back_many": "took back moves %(first)s to %(last)s on board %(board)s",
    # the terms of a time bank (game.clock.time_bank_fault); ``_no_board``: a challenge's
    "timebank_increment_alone": (
        "The option -increment= adds time to a time bank: give -timebank= too (for "
        "example -timebank=240h -increment=36h)."
    ),
    "timebank_increment_alone_no_board": (
        "The option -increment= adds time to a time bank: give -timebank= too (for "
        "example -timebank=240h -increment=36h); no board was started."
    ),
    "timebank_range": (
        "The time bank (-timebank=) holds from %(hours)s hours (%(days)s days) to %(most)s days."
    ),
    "timebank_range_no_board": (
        "The time bank (-timebank=) holds from %(hours)s hours (%(days)s days) to %(most)s "
        "days; no board was started."
    ),
    "timebank_increment_over": (
        "The increment (-increment=) is more than the time bank holds (-timebank=)."
    ),
    "timebank_increment_over_no_board": (
        "The increment (-increment=) is more than the time bank holds (-timebank=); no board "
        "was started."
    ),
    # a vacation (game.vacations)
    "not_on_vacation": "%(userid)s is not on vacation.",
    "vacation_too_short": "A vacation lasts at least 1 day.",
    "vacation_over_allowance": (
        "You asked for %(days)s days of vacation, but %(userid)s has %(num)s day left for "
        "%(year)s (of %(allowance)s a year); nothing was changed.",
        "You asked for %(days)s days of vacation, but %(userid)s has %(num)s days left for "
        "%(year)s (of %(allowance)s a year); nothing was changed.",
    ),
    # the terms of an event (game.event_terms)
    "event_name": (
        "'%(name)s' cannot be an event's name: 2 to 24 letters, digits, '-' or '_', starting "
        "with a letter."
    ),
    "event_format": (
        "The format is one of %(formats)s."
    ),
    "event_robots": (
        "--robots is fill or none."
    ),
    "event_rounds": (
        "--rounds is a number from 1 to %(most)s."
    ),
    "event_round_robin_rounds": (
        "A round robin is played once (--rounds 1) or twice (--rounds 2)."
    ),
    "event_max_players": (
        "--max-players is a number from 2 to %(most)s."
    ),
    "event_nagtime": (
        "--nagtime is a number of days from %(least)s to %(most)s."
    ),
    "event_forfeittime": (
        "--forfeittime is a number of days from %(least)s to %(most)s."
    ),
    "event_totaltime": (
        "--totaltime is a number of days from %(least)s to %(most)s."
    ),
    "event_nag_not_shorter": (
        "The reminder time (--nagtime) must be shorter than the forfeit time."
    ),
    "private_event_format": (
        "A private event's format is one of %(formats)s."
    ),
    "event_option": (
        "Unknown option '%(word)s': the options are --rounds=N, --max-players=N, --starts=+Nd "
        "or +Nh, --nagtime=D, --forfeittime=D, --totaltime=D, -timebank=240h, -increment=36h, "
        "-weekends, -unrated."
    ),
    "private_event_players": (
        "A private event has at most %(most)s players."
    ),
    "event_start": (
        "%(word)s: the start is +Nd (days) or +Nh (hours) from now."
    ),
    "event_start_later": (
        "A private event starts within 30 days."
    ),
    # asking for an analysis (game.analysis)
    "analysis_active": (
        "Board %(number)s is still being played, and only a finished game can be analysed: "
        "the engine's verdict would be advice during the game. Ask again when it is over."
    ),
    "analysis_stranger": (
        "%(userid)s did not play on board %(number)s, and only its two players (%(white)s "
        "and %(black)s) may ask for its analysis."
    ),
    "analysis_over_limit": (
        "%(userid)s has asked for %(num)s analysis in the last 24 hours, the most one player "
        "may ask for in a day: the engine's time is shared by everyone. Ask again tomorrow; "
        "an analysis already made (of a board anyone has had analysed) is sent at once and "
        "counts nothing.",
        "%(userid)s has asked for %(num)s analyses in the last 24 hours, the most one player "
        "may ask for in a day: the engine's time is shared by everyone. Ask again tomorrow; "
        "an analysis already made (of a board anyone has had analysed) is sent at once and "
        "counts nothing.",
    ),
    # the budget of mails one mail may cause to others (game.budget)
    "mails": ("%(num)s mail", "%(num)s mails"),
    "over_mail_budget": (
        "This command would send %(cost)s to other people, and one mail may cause at most "
        "%(most)s to others (%(spent)s so far in this mail). Nothing was sent or changed: "
        "send the rest in another mail."
    ),
    "over_hour_budget": (
        "This command would send %(cost)s to other people, and your mails may cause at most "
        "%(most)s to others in an hour. Nothing was sent or changed: try again in an hour."
    ),
    "over_account_budget": (
        "This command would send %(cost)s to other people, and the commands of one account "
        "may cause at most %(most)s to others in an hour, from whatever address. Nothing was "
        "sent or changed: try again in an hour."
    ),
}


def refusal(code: str, **values: str | int | Reason) -> Reason:
    """The game's reason ``code`` naming ``values``."""
    return Reason(code, tuple(values.items()), TEXTS[code])
