"""``emergo chat board userid password``: a player's mail body goes to the board's other
player and its subscribers (Subject ``Emergo chat N userid``)."""

from __future__ import annotations

from pbm_emergo.app.boards import primary_address
from pbm_emergo.app.messages import Reply
from pbm_emergo.commands.base import Arguments, Command, Context, Refused, Result
from pbm_emergo.commands.grammar import BOARD, PASSWORD, USERID, Grammar
from pbm_emergo.db import games
from pbm_emergo.views.templating import render


def no_text_error(command: str) -> Refused:
    return Refused(
        f"The command {command} sends the body of your mail, and it has none: write your "
        "text in the body (above any quoted text or signature)."
    )


class ChatCommand(Command):
    name = "emergo chat"
    grammar = Grammar(BOARD, USERID, PASSWORD)
    description = "send the body of your mail to the board's players and subscribers"
    details = (
        "Sends the body of your mail (up to a signature or quoted text) to both players of "
        "the board and to everyone subscribed to it, with the Subject 'Emergo chat N "
        "USERID'. Only the board's two players may chat on it (others write to a player "
        "with 'message'); you get a copy. To answer a chat, "
        "reply to it and write 'emergo chat N USERID PASSWORD' as the first line of the "
        "body, your text below it."
    )
    section = "emergo"

    def process(self, ctx: Context, args: Arguments) -> Result:
        board, _ = args.board(alone=True)
        number = board.number
        player = args.login(board=number, known=(board.white_player, board.black_player))
        if player.id not in (board.white_player_id, board.black_player_id):
            raise Refused(
                f"Only the players of board {number} ({board.white_player.userid} and "
                f"{board.black_player.userid}) may chat on it. To write to one of them, "
                "send 'message YOURID PASSWORD THEIRID' with your text in the body.",
                board=number,
            )
        if not ctx.comment.strip():
            raise no_text_error("emergo chat")
        # The opponent did not ask for the chat (charged to the sender: game.budget);
        # subscribers asked for the board's mail.
        recipients: dict[str, bool] = {}
        watchers = [primary_address(p) for p in games.subscribers(ctx.session, number)]
        for address, solicited in (
            (primary_address(board.white_player), False),
            (primary_address(board.black_player), False),
            *((w, True) for w in watchers),
            (ctx.sender, True),
        ):
            if address and address.lower() not in {r.lower() for r in recipients}:
                recipients[address] = solicited
        body = render(
            "chat.txt.j2",
            userid=player.userid,
            number=number,
            white=board.white_player.userid,
            black=board.black_player.userid,
            text=ctx.comment,
        )
        subject = f"Emergo chat {number} {player.userid}"
        others = len(recipients) - 1
        return Result(
            summary=f"sent a chat on board {number} to {others} other{'s' if others != 1 else ''}",
            replies=[
                Reply(to=r, subject=subject, body=body, board=number, solicited=solicited)
                for r, solicited in recipients.items()
            ],
        )
