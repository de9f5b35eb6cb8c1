"""``message userid password to [to ...]``: relay the body to other players (Subject
``Message from userid``), at their registered address, which the sender never sees."""

from __future__ import annotations

from pbm_emergo.app.accounts import USERID_PATTERN
from pbm_emergo.app.boards import primary_address
from pbm_emergo.app.messages import Reply
from pbm_emergo.commands.base import Arguments, Command, Context, Refused, Result
from pbm_emergo.commands.emergo_chat import no_text_error
from pbm_emergo.commands.grammar import PASSWORD, USERID, Grammar, named, repeated
from pbm_emergo.db import players
from pbm_emergo.db.models import Player
from pbm_emergo.views.templating import render


class MessageCommand(Command):
    name = "message"
    grammar = Grammar(USERID, PASSWORD, named(USERID, "to"), repeated(named(USERID, "to"), 0))
    description = "send the body of your mail to those players (Subject 'Message from userid')"
    details = (
        "Sends the body of your mail (up to a signature or quoted text) to each player "
        "named after your password, at their registered address, with the Subject "
        "'Message from USERID'. Neither side sees the other's address. Players that do "
        "not exist are named in the reply; the others still get the message."
    )

    def process(self, ctx: Context, args: Arguments) -> Result:
        sender = args.login()
        if not ctx.comment.strip():
            raise no_text_error("message")
        recipients = args.words_of("to")
        found = players.find_players(ctx.session, recipients)
        delivered: list[Player] = []
        missing: list[str] = []
        for word in recipients:
            player = found.get(players.userid_key(word))
            if player is None or not player.active or primary_address(player) is None:
                if word not in missing:
                    missing.append(word)
            elif player not in delivered:
                delivered.append(player)
        # Unknown recipients are named back to the sender (a word that is no userid at all
        # stays masked: it might be a password typed in the wrong place).
        ctx.reveal(*(w for w in missing if USERID_PATTERN.fullmatch(w)))
        if not delivered:
            raise Refused(
                "Nobody got your message: "
                + "; ".join(f"there is no player '{w[:40]}' to send it to" for w in missing)
                + "."
            )
        body = render(
            "message.txt.j2", userid=sender.userid, text=ctx.comment, server=ctx.config.address
        )
        subject = f"Message from {sender.userid}"
        replies = [
            Reply(to=address, subject=subject, body=body)
            for address in (primary_address(p) for p in delivered)
            if address is not None
        ]
        names = [p.userid for p in delivered]
        return Result(
            summary=f"sent a message to {', '.join(names)}",
            answer=render("message_sent.txt.j2", sent_to=names, missing=missing),
            answer_subject="Emergo: message sent",
            replies=replies,
        )
