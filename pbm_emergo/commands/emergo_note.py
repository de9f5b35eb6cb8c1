"""``emergo note board userid password TEXT``: a private note on a game, shown only to its
writer."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import BOARD, PASSWORD, USERID, WORD, Grammar, named, repeated
from pbm_emergo.game.notes import MAX_NOTE_CHARS, MAX_NOTES
from pbm_emergo.game.requests import NoteRequest


class NoteCommand(Command):
    name = "emergo note"
    grammar = Grammar(BOARD, USERID, PASSWORD, repeated(named(WORD, "TEXT"), 0))
    description = "a private note on a game, shown only to you in emergo show and record"
    details = (
        "Keeps TEXT (or, with no TEXT, the body of your mail) as a note on the board, after "
        "its latest move. Your notes follow the board when you ask for it with 'emergo "
        "show' or 'emergo record' from one of your registered addresses; nobody else sees "
        f"them. A note has at most {MAX_NOTE_CHARS} characters, and you keep at most "
        f"{MAX_NOTES} on one board."
    )
    section = "emergo"

    def request(self, args: Arguments) -> NoteRequest:
        userid, password = args.login()
        return self.made(
            NoteRequest, board=args.board(), userid=userid, password=password,
            text=" ".join(args.words_of("text")),
        )  # fmt: skip
