"""``emergo chat board userid password``: the mail's body goes to the board's players and
subscribers (Subject ``Emergo chat N userid``)."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command, Context, Refused, Result
from pbm_emergo.commands.grammar import BOARD, PASSWORD, USERID, Grammar
from pbm_emergo.db import games
from pbm_emergo.game.boards import primary_address
from pbm_emergo.game.messages import Reply
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
        "USERID'. Any player may chat on any board; you get a copy. To answer a chat, "
        "reply to it and write 'emergo chat N USERID PASSWORD' as the first line of the "
        "body, your text below it."
    )
    section = "emergo"

    def process(self, ctx: Context, args: Arguments) -> Result:
        board, _ = args.board(alone=True)
        number = board.number
        player = args.login(board=number, known=(board.white_player, board.black_player))
        if not ctx.comment.strip():
            raise no_text_error("emergo chat")
        recipients: list[str] = []
        seen: set[str] = set()
        watchers = [primary_address(p) for p in games.subscribers(ctx.session, number)]
        for address in (
            primary_address(board.white_player),
            primary_address(board.black_player),
            *watchers,
            ctx.sender,
        ):
            if address and address.lower() not in seen:
                seen.add(address.lower())
                recipients.append(address)
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
            replies=[Reply(to=r, subject=subject, body=body, board=number) for r in recipients],
        )
