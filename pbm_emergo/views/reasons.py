"""The reasons of the rules and the game (:class:`~pbm_emergo.rules.reasons.Reason`) said in
the reader's language: each code's message, with the placeholders of its English text (the
same text: in English the message is the reason's ``str()``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbm_emergo.rules.reasons import Reason
from pbm_emergo.views import i18n

__all__ = ["MESSAGES", "said"]

Say = Callable[[dict[str, Any]], str]


# Each code's message in the current locale, given the reason's values (already said).
MESSAGES: dict[str, Say] = {
    # the rules (pbm_emergo/rules/reasons.py)
    "game_over": lambda v: i18n._("%(side)s has no legal move: the game is over.", **v),
    "capture_compulsory": lambda v: i18n.ngettext(
        "Capture is compulsory: you must capture, taking %(num)s man (for example %(example)s).",
        "Capture is compulsory: you must capture, taking %(num)s men (for example %(example)s).",
        v["num"],
        **v,
    ),
    "no_piece": lambda v: i18n._("There is no piece on %(cell)s.", **v),
    "not_yours": lambda v: i18n._("The piece on %(cell)s is not yours.", **v),
    "no_route_to": lambda v: i18n.ngettext(
        "No maximum capture route jumps from %(start)s to %(end)s: you must take %(num)s man. "
        "Legal captures: %(legal)s.",
        "No maximum capture route jumps from %(start)s to %(end)s: you must take %(num)s men. "
        "Legal captures: %(legal)s.",
        v["num"],
        **v,
    ),
    "not_a_route_must_take": lambda v: i18n.ngettext(
        "%(move)s is not a capture route: %(why)s You must take %(num)s man; "
        "legal captures: %(legal)s.",
        "%(move)s is not a capture route: %(why)s You must take %(num)s men; "
        "legal captures: %(legal)s.",
        v["num"],
        **v,
    ),
    "short_capture_one": lambda v: i18n.ngettext(
        "%(move)s takes 1 man, but maximum capture is compulsory and you must take %(num)s man: "
        "continue the route, e.g. %(example)s.",
        "%(move)s takes 1 man, but maximum capture is compulsory and you must take %(num)s men: "
        "continue the route, e.g. %(example)s.",
        v["num"],
        **v,
    ),
    "short_capture": lambda v: i18n.ngettext(
        "%(move)s takes %(taken)s men, but maximum capture is compulsory and you must take "
        "%(num)s man: continue the route, e.g. %(example)s.",
        "%(move)s takes %(taken)s men, but maximum capture is compulsory and you must take "
        "%(num)s men: continue the route, e.g. %(example)s.",
        v["num"],
        **v,
    ),
    "not_maximum": lambda v: i18n.ngettext(
        "%(move)s is not a maximum capture: you must take %(num)s man. Legal captures: %(legal)s.",
        "%(move)s is not a maximum capture: you must take %(num)s men. Legal captures: %(legal)s.",
        v["num"],
        **v,
    ),
    "no_piece_no_capture": lambda v: i18n._(
        "There is no piece on %(cell)s, and there is no capture here.", **v
    ),
    "not_yours_no_capture": lambda v: i18n._(
        "The piece on %(cell)s is not yours, and there is no capture here.", **v
    ),
    "not_a_route": lambda v: i18n._("%(move)s is not a capture route: %(why)s", **v),
    "no_capture_here": lambda v: i18n._(
        "There is no capture here: %(move)s is not a legal route.", **v
    ),
    "nothing_in_hand": lambda v: i18n._(
        "You have no men in hand to enter: move a piece on the board instead."
    ),
    "enter_occupied": lambda v: i18n._(
        "Cell %(cell)s is occupied: men are entered on vacant cells only.", **v
    ),
    "first_move_centre": lambda v: i18n._(
        "White may not enter on e5 on the first move of the game."
    ),
    "feeding": lambda v: i18n._(
        "A man entered on %(cell)s could be captured at once by %(them)s's piece on "
        "%(attacker)s, and %(them)s is not attacking you now: that is feeding, which is not "
        "allowed. Enter on a cell where it is safe (every rim cell is).",
        **v,
    ),
    "men_in_hand": lambda v: i18n.ngettext(
        "You still have %(num)s man in hand: you must enter a man; pieces on the board may "
        "not move until all your men are entered.",
        "You still have %(num)s men in hand: you must enter a man; pieces on the board may "
        "not move until all your men are entered.",
        v["num"],
        **v,
    ),
    "step_occupied": lambda v: i18n._(
        "Cell %(cell)s is occupied: a piece steps only to a vacant neighbouring cell.", **v
    ),
    "not_a_jump": lambda v: i18n._(
        "%(start)s to %(end)s is not a jump: a capture jumps an adjacent enemy piece and lands "
        "on the vacant cell just beyond it.",
        **v,
    ),
    "jump_back": lambda v: i18n._(
        "%(start)sx%(end)s turns straight back along the jump before it, which a capture may "
        "not do.",
        **v,
    ),
    "jump_own": lambda v: i18n._(
        "%(start)sx%(end)s would jump %(over)s, which holds your own piece at that point: a "
        "capture jumps an enemy piece.",
        **v,
    ),
    "jump_nothing": lambda v: i18n._(
        "%(start)sx%(end)s would jump %(over)s, which holds no piece at that point: a capture "
        "jumps an enemy piece.",
        **v,
    ),
    "land_occupied": lambda v: i18n._(
        "%(start)sx%(end)s would land on %(end)s, which is occupied.", **v
    ),
    "ambiguous": lambda v: i18n._(
        "%(move)s matches %(num)s capture routes; write the whole route: %(routes)s.", **v
    ),
    "not_a_move": lambda v: i18n._(
        "%(text)s is not a move: write an entry like e4, a step like e4-e5, or a capture like "
        "e4xc4xc6.",
        **v,
    ),
    "not_a_cell": lambda v: i18n._("%(cell)s is not a cell of the Emergo board.", **v),
    # the game (pbm_emergo/game/reasons.py)
    "not_on_board": lambda v: i18n._(
        "%(userid)s does not play on board %(board)s: it is %(white)s against %(black)s.", **v
    ),
    "stale_guard": lambda v: i18n._(
        "Board %(board)s is at move %(expected)s, not move %(given)s: nothing was done.", **v
    ),
    "not_your_turn": lambda v: i18n._(
        "It is not your turn on board %(board)s: it is %(userid)s's.", **v
    ),
    "ambiguous_move": lambda v: i18n._(
        "%(move)s matches several capture routes on board %(board)s; write the whole route.",
        **v,
    ),
    "illegal_move": lambda v: i18n._("%(move)s is not a legal move on board %(board)s now.", **v),
    "queued_as": lambda v: i18n._(
        "it was queued as move %(given)s, but the next move is move %(expected)s.", **v
    ),
    "draw_offered": lambda v: i18n._(
        "You have already offered a draw on board %(board)s; wait for %(userid)s's answer.",
        **v,
    ),
    "undo_asked": lambda v: i18n._(
        "You have already asked to take back a move on board %(board)s; wait for "
        "%(userid)s's answer.",
        **v,
    ),
    "nothing_to_undo": lambda v: i18n._("You have no move to take back on board %(board)s.", **v),
    "undo_pending": lambda v: i18n._(
        "%(userid)s has asked to take back a move on board %(board)s; answer that first "
        "with accept or reject.",
        **v,
    ),
    "nothing_to_accept": lambda v: i18n._(
        "%(userid)s has neither offered a draw nor asked to take back a move on board "
        "%(board)s, so there is nothing to accept.",
        **v,
    ),
    "nothing_to_reject": lambda v: i18n._(
        "%(userid)s has neither offered a draw nor asked to take back a move on board "
        "%(board)s, so there is nothing to reject.",
        **v,
    ),
    "undo_void": lambda v: i18n._(
        "The request to take back a move on board %(board)s no longer fits the game.", **v
    ),
    "rematch_stranger": lambda v: i18n._(
        "You did not play on board %(board)s: only its two players can ask for a rematch.", **v
    ),
    "rematch_early": lambda v: i18n._(
        "The game on board %(board)s is not over yet: a rematch follows a finished game.", **v
    ),
    "submit_not_a_move": lambda v: i18n._(
        "Only a move can be submitted, not '%(text)s': send 'emergo move %(board)s %(userid)s "
        "PASSWORD %(text)s' for that.",
        **v,
    ),
    "nothing_submitted": lambda v: i18n._(
        "%(userid)s has no submitted move on board %(board)s: send 'emergo submit %(board)s "
        "%(userid)s PASSWORD MOVE' first.",
        **v,
    ),
    "submitted_dropped": lambda v: i18n._(
        "Your submitted move %(move)s on board %(board)s was dropped: the board's moves "
        "changed after you submitted it. Nothing was played; submit again if you still want it.",
        **v,
    ),
    "not_a_board": lambda v: i18n._(
        "'%(word)s' is not a board number (boards are numbered from 101).", **v
    ),
    # the commands (pbm_emergo/commands/reasons.py)
    "start_here": lambda v: i18n._(
        "This server plays Emergo by mail, and your mail has no command it knows."
    ),
    "emergo_alone": lambda v: i18n._(
        "The command 'emergo' needs a second word such as help, challenge, move or show."
    ),
    "emergo_alone_meant": lambda v: i18n._(
        "The command 'emergo' needs a second word such as help, challenge, move or show. "
        "Did you mean '%(meant)s'?",
        **v,
    ),
    "board_alone": lambda v: i18n._("Write the board number alone: %(command)s.", **v),
    "accept_reject_on_board": lambda v: i18n._(
        "To %(keyword)s a draw offer or a take-back request on a board, write "
        "'emergo move %(board)s USERID PASSWORD %(keyword)s'; 'emergo %(keyword)s "
        "USERID PASSWORD' is about challenges.",
        **v,
    ),
    "too_many_arguments": lambda v: i18n._("The command has more than %(num)s arguments.", **v),
    "multiple_inside": lambda v: i18n._(
        "'multiple' works only as the Subject of a mail, not inside one."
    ),
    "board_or_all": lambda v: i18n._(
        "The command %(command)s needs a board number or 'all' first: "
        "%(command)s 101 USERID PASSWORD.",
        **v,
    ),
    "seek_number": lambda v: i18n._(
        "The number of games sought is a number from 0 to %(num)s, or off.", **v
    ),
    "digest_hour": lambda v: i18n._(
        "Write the hour of your digest (0 to 23, in your time zone) or off after the "
        "password: notify digest userid password HOUR|off."
    ),
    "board_style": lambda v: i18n._(
        "Write list or diagram after the password: board userid password list|diagram."
    ),
    "vacation_days": lambda v: i18n._(
        "Write a number of days or off after the password: vacation userid password DAYS|off."
    ),
    "autoplay_on_off": lambda v: i18n._(
        "Write on or off after the password: emergo autoplay userid password on|off."
    ),
    "limit_number": lambda v: i18n._(
        "The limit is a number of active boards from 0 to %(num)s, or off.", **v
    ),
    "no_time_zone": lambda v: i18n._(
        "The ZONE after the password is no time zone: write a name of the IANA time zone "
        "database, such as Europe/Amsterdam, America/New_York or UTC."
    ),
    "signup_language": lambda v: i18n._(
        "Write language=en, language=nl, language=de or language=fr."
    ),
    # how a finished game ended (pbm_emergo/game/sentences.py result_reason)
    "won_eliminated": lambda v: i18n._(
        "%(winner)s (%(side)s) wins: %(loser)s has no men left.", **v
    ),
    "won_blocked": lambda v: i18n._(
        "%(winner)s (%(side)s) wins: %(loser)s is blocked and cannot move.", **v
    ),
    "won_no_entry": lambda v: i18n._(
        "%(winner)s (%(side)s) wins: %(loser)s has men in hand but nowhere to enter them.", **v
    ),
    "won_resigned": lambda v: i18n._("%(winner)s (%(side)s) wins: %(loser)s resigned.", **v),
    "won_forfeit": lambda v: i18n._(
        "%(winner)s (%(side)s) wins: %(loser)s did not move in time.", **v
    ),
    "won_adjudicated": lambda v: i18n._(
        "%(winner)s (%(side)s) wins: the server's operator adjudicated the game.", **v
    ),
    "won_other": lambda v: i18n._("%(winner)s (%(side)s) wins: %(reason)s.", **v),
    "voided": lambda v: i18n._(
        "The game is void: the server's operator annulled it (no result, no rating)."
    ),
    "drawn_repetition": lambda v: i18n._(
        "The game is a draw: the same position came up for the third time."
    ),
    "drawn_agreed": lambda v: i18n._("The game is a draw: both players agreed."),
    "drawn_blocked": lambda v: i18n._(
        "The game is a draw: %(userid)s is blocked and cannot move (a draw under -blocked=draw).",
        **v,
    ),
    "drawn_no_entry": lambda v: i18n._(
        "The game is a draw: %(userid)s has men in hand but nowhere to enter them (a draw "
        "under -blocked=draw).",
        **v,
    ),
    "drawn_adjudicated": lambda v: i18n._(
        "The game is a draw: the server's operator adjudicated the game."
    ),
    "drawn_other": lambda v: i18n._("The game is a draw: %(reason)s.", **v),
    "game_is_over": lambda v: i18n._("The game on board %(number)s is over: %(result)s", **v),
    # the one-line summaries of a move or a vote in a ``multiple`` report
    "summary_played": lambda v: i18n._("played %(move)s on board %(board)s", **v),
    "summary_auto": lambda v: i18n._("%(userid)s's %(move)s (Auto)", **v),
    "summary_forced": lambda v: i18n._("%(userid)s's %(move)s (Forced)", **v),
    "summary_then": lambda v: i18n._("%(first)s; then %(then)s", **v),
    "summary_ended": lambda v: i18n._("%(moves)s; %(result)s", **v),
    "summary_resigned": lambda v: i18n._("resigned on board %(board)s", **v),
    "summary_declined": lambda v: i18n._(
        "declined the game on board %(board)s; the board is removed", **v
    ),
    "summary_offered_draw": lambda v: i18n._("offered a draw on board %(board)s", **v),
    "summary_asked_undo_one": lambda v: i18n._("asked to take back move %(first)s", **v),
    "summary_asked_undo_many": lambda v: i18n._(
        "asked to take back moves %(first)s to %(last)s", **v
    ),
    "summary_rejected_draw": lambda v: i18n._("rejected the draw offer on board %(board)s", **v),
    "summary_rejected_undo": lambda v: i18n._(
        "rejected the request to take back a move on board %(board)s", **v
    ),
    "summary_agreed_draw": lambda v: i18n._("agreed to a draw on board %(board)s", **v),
    "summary_took_back_one": lambda v: i18n._("took back move %(first)s on board %(board)s", **v),
    "summary_took_back_many": lambda v: i18n._(
        "took back moves %(first)s to %(last)s on board %(board)s", **v
    ),
    # a challenge's options, who starts its game, whether the challenged player takes it
    "option_unknown": lambda v: i18n._(
        "Unknown option '%(word)s': the options are -unrated, -blocked=draw, "
        "--nagtime=DAYS, --forfeittime=DAYS, --totaltime=DAYS, -timebank=240h, "
        "-increment=36h and -weekends.",
        **v,
    ),
    "option_hours": lambda v: i18n._(
        "The option %(word)s needs a time in hours (240h) or days (10d), at most "
        "%(most)s days; no board was started.",
        **v,
    ),
    "option_days": lambda v: i18n._(
        "The option %(word)s needs a number of days from %(floor)s to %(most)s.", **v
    ),
    "option_short_total": lambda v: i18n._(
        "The option %(word)s is too short: the total thinking time of a game is at "
        "least %(floor)s days, so that nobody loses a game on time before a reminder "
        "can reach them; no board was started.",
        **v,
    ),
    "option_short_forfeit": lambda v: i18n._(
        "The option %(word)s is too short: the forfeit time of a game is at least "
        "%(floor)s days, so that nobody loses a game on time before a reminder can "
        "reach them; no board was started.",
        **v,
    ),
    "nag_not_before_forfeit": lambda v: i18n._(
        "The reminder time (--nagtime=%(nag)s) must be shorter than the forfeit time "
        "(--forfeittime=%(forfeit)s), so that the reminder comes before the game can "
        "be lost on time; no board was started.",
        **v,
    ),
    "challenge_same_player": lambda v: i18n._("A game needs two different players."),
    "challenge_not_theirs": lambda v: i18n._(
        "Only %(white)s or %(black)s can start this game.", **v
    ),
    "challenge_untrusted": lambda v: i18n._(
        "Your mail failed the DMARC check of its sender's domain, so its From "
        "address may be forged and cannot start a game; send the challenge from "
        "your registered address through your own mail provider."
    ),
    "challenge_not_from_them": lambda v: i18n._(
        "Only %(white)s or %(black)s can start this game: send the challenge from "
        "one of their registered addresses.",
        **v,
    ),
    "challenge_refused": lambda v: i18n._(
        "%(userid)s does not accept challenges at the moment, so no board was started.", **v
    ),
    "challenge_over_limit": lambda v: i18n.ngettext(
        "%(userid)s plays as many games as they want at the moment (%(num)s active "
        "board), so no board was started; try again when one of them has ended.",
        "%(userid)s plays as many games as they want at the moment (%(num)s active "
        "boards), so no board was started; try again when one of them has ended.",
        v["num"],
        **v,
    ),
    # a new account's userid and a new password
    "userid_not_allowed": lambda v: i18n._(
        "The userid '%(userid)s' is not allowed: a userid has 2 to 16 characters "
        "(letters, digits, _ and -) and starts with a letter.",
        **v,
    ),
    "userid_reserved": lambda v: i18n._(
        "The userid '%(userid)s' is a reserved word; please choose another.", **v
    ),
    "userid_server_like": lambda v: i18n._(
        "The userid '%(userid)s' looks like one of the server's own (its robots "
        "robot1 to robot3, its administrators, the server itself), and players would "
        "take it for one; please choose another.",
        **v,
    ),
    "password_length": lambda v: i18n._(
        "A password needs %(least)s to %(most)s characters (no spaces).", **v
    ),
    # moves in advance (emergo queue)
    "queue_your_turn": lambda v: i18n._(
        "It is your turn on board %(number)s: play your move with 'emergo move "
        "%(number)s %(userid)s PASSWORD MOVE'. A move is queued only while the "
        "opponent is to move.",
        **v,
    ),
    "queue_mixed": lambda v: i18n._(
        "A conditional queue has only items of the form OPPONENTMOVE=YOURMOVE "
        "(for example e4xe6=d5 c3=g7); a plain queued move stands alone."
    ),
    "queue_one": lambda v: i18n._(
        "Queue one move (for example d5), or conditional items of the form "
        "OPPONENTMOVE=YOURMOVE."
    ),
    "queue_twice": lambda v: i18n._("The queue names the opponent's move %(move)s twice.", **v),
    "queue_over_after": lambda v: i18n._(
        "After %(move)s the game is over: there is nothing to answer.", **v
    ),
    "queue_guard": lambda v: i18n._(
        "Board %(board)s is at move %(ply)s, so your queued move would be move "
        "%(number)s, not move %(guard)s: nothing was queued.",
        **v,
    ),
    "queue_theirs_ambiguous": lambda v: i18n._(
        "The opponent's move %(move)s matches several capture routes (%(routes)s).", **v
    ),
    "queue_mine_ambiguous": lambda v: i18n._(
        "Your answer %(move)s to %(theirs)s matches several capture routes (%(routes)s).",
        **v,
    ),
    "queue_theirs_illegal": lambda v: i18n._(
        "The opponent's move %(move)s would not be legal: %(why)s", **v
    ),
    "queue_mine_illegal": lambda v: i18n._(
        "Your answer %(move)s to %(theirs)s would not be legal: %(why)s", **v
    ),
    "queue_theirs_invalid": lambda v: i18n._(
        "The opponent's move %(move)s is not a move: %(why)s", **v
    ),
    "queue_mine_invalid": lambda v: i18n._(
        "Your answer %(move)s to %(theirs)s is not a move: %(why)s", **v
    ),
    # subscriptions
    "subscribe_plays": lambda v: i18n._(
        "%(userid)s plays on board %(board)s and gets its mails anyway.", **v
    ),
    "subscribe_over": lambda v: i18n._(
        "The game on board %(board)s is over: there is nothing more to watch "
        "('emergo show %(board)s' sends the board).",
        **v,
    ),
    "unsubscribe_from_every": lambda v: i18n._(
        "%(userid)s is subscribed to every board, so to board %(board)s too: "
        "'emergo unsubscribe all %(userid)s PASSWORD' ends that.",
        **v,
    ),
    "not_subscribed": lambda v: i18n._(
        "%(userid)s is not subscribed to board %(board)s.", **v
    ),
    # private notes, blocks, password resets
    "note_empty": lambda v: i18n._(
        "The note is empty: write it after the password (emergo note BOARD USERID "
        "PASSWORD TEXT), or in the body of the mail."
    ),
    "note_too_long": lambda v: i18n._(
        "A note has at most %(most)s characters; this one has %(length)s.", **v
    ),
    "notes_full": lambda v: i18n._(
        "You have %(most)s notes on this board already, the most one player keeps.", **v
    ),
    "block_self": lambda v: i18n._("You cannot block yourself."),
    "unblock_self": lambda v: i18n._("You do not block yourself."),
    "not_blocked": lambda v: i18n._("You do not block that player."),
    "reset_unknown": lambda v: i18n._(
        "No password reset is waiting for this code: check that it is the code mailed to "
        "you after 'forgot'. Send 'forgot USERID' for a new code."
    ),
    "reset_used": lambda v: i18n._(
        "This code was used at %(at)s, and a code works once. Send 'forgot USERID' for a "
        "new code.",
        **v,
    ),
    "reset_expired": lambda v: i18n._(
        "This code expired at %(at)s (a code works for %(days)s day after it is mailed). "
        "Send 'forgot USERID' for a new code.",
        **v,
    ),
    # the terms of a time bank; ``_no_board``: a challenge's
    "timebank_increment_alone": lambda v: i18n._(
        "The option -increment= adds time to a time bank: give -timebank= too (for "
        "example -timebank=240h -increment=36h)."
    ),
    "timebank_increment_alone_no_board": lambda v: i18n._(
        "The option -increment= adds time to a time bank: give -timebank= too (for "
        "example -timebank=240h -increment=36h); no board was started."
    ),
    "timebank_range": lambda v: i18n._(
        "The time bank (-timebank=) holds from %(hours)s hours (%(days)s days) to %(most)s days.",
        **v,
    ),
    "timebank_range_no_board": lambda v: i18n._(
        "The time bank (-timebank=) holds from %(hours)s hours (%(days)s days) to %(most)s "
        "days; no board was started.",
        **v,
    ),
    "timebank_increment_over": lambda v: i18n._(
        "The increment (-increment=) is more than the time bank holds (-timebank=)."
    ),
    "timebank_increment_over_no_board": lambda v: i18n._(
        "The increment (-increment=) is more than the time bank holds (-timebank=); no board "
        "was started."
    ),
    # a vacation
    "not_on_vacation": lambda v: i18n._("%(userid)s is not on vacation.", **v),
    "vacation_too_short": lambda v: i18n._("A vacation lasts at least 1 day."),
    "vacation_over_allowance": lambda v: i18n.ngettext(
        "You asked for %(days)s days of vacation, but %(userid)s has %(num)s day "
        "left for %(year)s (of %(allowance)s a year); nothing was changed.",
        "You asked for %(days)s days of vacation, but %(userid)s has %(num)s days "
        "left for %(year)s (of %(allowance)s a year); nothing was changed.",
        v["num"],
        **v,
    ),
    # the terms of an event
    "event_name": lambda v: i18n._(
        "'%(name)s' cannot be an event's name: 2 to 24 letters, digits, '-' or '_', starting "
        "with a letter.",
        **v,
    ),
    "event_format": lambda v: i18n._(
        "The format is one of %(formats)s.",
        **v,
    ),
    "event_robots": lambda v: i18n._(
        "--robots is fill or none."
    ),
    "event_rounds": lambda v: i18n._(
        "--rounds is a number from 1 to %(most)s.",
        **v,
    ),
    "event_round_robin_rounds": lambda v: i18n._(
        "A round robin is played once (--rounds 1) or twice (--rounds 2)."
    ),
    "event_max_players": lambda v: i18n._(
        "--max-players is a number from 2 to %(most)s.",
        **v,
    ),
    "event_nagtime": lambda v: i18n._(
        "--nagtime is a number of days from %(least)s to %(most)s.",
        **v,
    ),
    "event_forfeittime": lambda v: i18n._(
        "--forfeittime is a number of days from %(least)s to %(most)s.",
        **v,
    ),
    "event_totaltime": lambda v: i18n._(
        "--totaltime is a number of days from %(least)s to %(most)s.",
        **v,
    ),
    "event_nag_not_shorter": lambda v: i18n._(
        "The reminder time (--nagtime) must be shorter than the forfeit time."
    ),
    "private_event_format": lambda v: i18n._(
        "A private event's format is one of %(formats)s.",
        **v,
    ),
    "event_option": lambda v: i18n._(
        "Unknown option '%(word)s': the options are --rounds=N, --max-players=N, --starts=+Nd "
        "or +Nh, --nagtime=D, --forfeittime=D, --totaltime=D, -timebank=240h, -increment=36h, "
        "-weekends, -unrated.",
        **v,
    ),
    "private_event_players": lambda v: i18n._(
        "A private event has at most %(most)s players.",
        **v,
    ),
    "event_start": lambda v: i18n._(
        "%(word)s: the start is +Nd (days) or +Nh (hours) from now.",
        **v,
    ),
    "event_start_later": lambda v: i18n._(
        "A private event starts within 30 days."
    ),
    # asking for an analysis
    "analysis_active": lambda v: i18n._(
        "Board %(number)s is still being played, and only a finished game can be "
        "analysed: the engine's verdict would be advice during the game. Ask again "
        "when it is over.",
        **v,
    ),
    "analysis_stranger": lambda v: i18n._(
        "%(userid)s did not play on board %(number)s, and only its two players "
        "(%(white)s and %(black)s) may ask for its analysis.",
        **v,
    ),
    "analysis_over_limit": lambda v: i18n.ngettext(
        "%(userid)s has asked for %(num)s analysis in the last 24 hours, the most one "
        "player may ask for in a day: the engine's time is shared by everyone. Ask "
        "again tomorrow; an analysis already made (of a board anyone has had "
        "analysed) is sent at once and counts nothing.",
        "%(userid)s has asked for %(num)s analyses in the last 24 hours, the most one "
        "player may ask for in a day: the engine's time is shared by everyone. Ask "
        "again tomorrow; an analysis already made (of a board anyone has had "
        "analysed) is sent at once and counts nothing.",
        v["num"],
        **v,
    ),
    # the budget of mails one mail may cause to others
    "mails": lambda v: i18n.ngettext("%(num)s mail", "%(num)s mails", v["num"]),
    "over_mail_budget": lambda v: i18n._(
        "This command would send %(cost)s to other people, and one mail may "
        "cause at most %(most)s to others (%(spent)s so far in this mail). "
        "Nothing was sent or changed: send the rest in another mail.",
        **v,
    ),
    "over_hour_budget": lambda v: i18n._(
        "This command would send %(cost)s to other people, and your mails may "
        "cause at most %(most)s to others in an hour. Nothing was sent or "
        "changed: try again in an hour.",
        **v,
    ),
    "over_account_budget": lambda v: i18n._(
        "This command would send %(cost)s to other people, and the commands of "
        "one account may cause at most %(most)s to others in an hour, from "
        "whatever address. Nothing was sent or changed: try again in an hour.",
        **v,
    ),
}


def said(value: str | Reason) -> str:
    """``value`` in the current locale: a reason said by its code's message (the reasons
    among its values said first), a plain text as it is."""
    if not isinstance(value, Reason):
        return value
    values = {
        name: said(inner) if isinstance(inner, Reason) else inner for name, inner in value.values
    }
    return MESSAGES[value.code](values)
