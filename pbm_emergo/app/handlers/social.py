"""The requests between players and spectators: ``message``, ``emergo chat``,
``emergo subscribe`` / ``unsubscribe``, ``emergo notify``."""

from __future__ import annotations

from pbm_emergo.app import resolve
from pbm_emergo.app.context import Context, usage_error
from pbm_emergo.app.handlers import handles
from pbm_emergo.app.messages import Reply
from pbm_emergo.app.resolve import login, login_seated
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.social import (
    subscribe,
    subscription_board,
    toggle_notifications,
    unsubscribe,
    watchable_board,
)
from pbm_emergo.db import blocks
from pbm_emergo.db.reads.accounts import Account, read_accounts
from pbm_emergo.db.reads.watchers import subscribers
from pbm_emergo.game.accounts import userid_key
from pbm_emergo.game.requests import (
    ChatRequest,
    MessageRequest,
    NotifyRequest,
    SubscriptionRequest,
)
from pbm_emergo.game.words import USERID_PATTERN
from pbm_emergo.views import i18n
from pbm_emergo.views.templating import render, render_in


def no_text_error(command: str) -> Refused:
    return Refused(
        i18n._(
            "The command %(command)s sends the body of your mail, and it has none: write "
            "your text in the body (above any quoted text or signature).",
            command=command,
        )
    )


@handles(MessageRequest)
def message(ctx: Context, request: MessageRequest) -> Result:
    sender = login(ctx, request)
    if not ctx.comment.strip():
        raise no_text_error("message")
    recipients = list(request.to)
    found = read_accounts(ctx.session, recipients)
    delivered: list[Account] = []
    missing: list[str] = []
    for word in recipients:
        account = found.get(userid_key(word))
        if account is None or not account.active or account.primary_address is None:
            if word not in missing:
                missing.append(word)
        elif account not in delivered:
            delivered.append(account)
    # Unknown recipients are named back to the sender (a word that is no userid at all
    # stays masked: it might be a password typed in the wrong place).
    ctx.reveal(*(w for w in missing if USERID_PATTERN.fullmatch(w)))
    if not delivered:
        raise Refused(
            i18n._(
                "Nobody got your message: %(reasons)s.",
                reasons="; ".join(
                    i18n._("there is no player '%(userid)s' to send it to", userid=w[:40])
                    for w in missing
                ),
            )
        )
    subject = f"Message from {sender.userid}"
    # A recipient who blocks the sender is left out, the answer as if it had gone.
    blockers = blocks.blockers_of(ctx.session, sender.id, [p.id for p in delivered])
    # Each recipient reads it in their own language (the sender's text as written).
    replies = [
        Reply(
            to=address,
            subject=subject,
            body=render_in(
                p.language, "message.txt.j2", userid=sender.userid, text=ctx.comment,
                server=ctx.config.address,
            ),
        )
        for p in delivered
        if p.id not in blockers and (address := p.primary_address) is not None
    ]
    names = [p.userid for p in delivered]
    return Result(
        said=lambda: i18n._("sent a message to %(userids)s", userids=", ".join(names)),
        answer=render("message_sent.txt.j2", sent_to=names, missing=missing),
        answer_subject="Emergo: message sent",
        replies=replies,
    )


@handles(ChatRequest)
def chat(ctx: Context, request: ChatRequest) -> Result:
    read = resolve.board_read(ctx, request.board, alone=True)
    number = read.snapshot.number
    seated = white, black = read.accounts
    player = login_seated(ctx, request.userid, request.password, read)
    if player.id not in (white.id, black.id):
        raise Refused(
            i18n._(
                "Only the players of board %(board)s (%(white)s and %(black)s) may chat on "
                "it. To write to one of them, send 'message YOURID PASSWORD THEIRID' with "
                "your text in the body.",
                board=number, white=white.userid, black=black.userid,
            ),
            board=number,
        )
    if not ctx.comment.strip():
        raise no_text_error("emergo chat")
    # The opponent did not ask for the chat (charged to the sender: game.budget);
    # subscribers asked for the board's mail.
    recipients: dict[str, bool] = {}
    subscribed = subscribers(ctx.session, number)
    watchers = [w.address for w in subscribed]
    # An opponent who blocks the player gets no chat; the player is answered as if they did.
    blockers = blocks.blockers_of(ctx.session, player.id, [white.id, black.id])
    for address, solicited in (
        *(
            (account.primary_address, False)
            for account in seated
            if account.id not in blockers
        ),
        *((w, True) for w in watchers),
        (ctx.sender, True),
    ):
        if address and address.lower() not in {r.lower() for r in recipients}:
            recipients[address] = solicited
    # Each in their own language; the sender's copy in the language of their mail's replies.
    languages = {
        address.lower(): language
        for address, language in (
            *((account.primary_address, account.language) for account in seated),
            *((w.address, w.language) for w in subscribed),
        )
        if address is not None
    }
    languages[ctx.sender.lower()] = i18n.current()
    words = dict(
        userid=player.userid,
        number=number,
        white=white.userid,
        black=black.userid,
        text=ctx.comment,
    )
    subject = f"Emergo chat {number} {player.userid}"
    # Counted as if the blocker had it too, so that a `multiple` report tells nothing.
    others = len(recipients) - 1 + len(blockers)
    return Result(
        said=lambda: i18n.ngettext(
            "sent a chat on board %(board)s to %(num)s other player",
            "sent a chat on board %(board)s to %(num)s other players",
            others,
            board=number,
        ),
        replies=[
            Reply(
                to=r,
                subject=subject,
                body=render_in(languages.get(r.lower()), "chat.txt.j2", **words),
                board=number,
                solicited=solicited,
            )
            for r, solicited in recipients.items()
        ],
    )


@handles(SubscriptionRequest)
def subscription(ctx: Context, request: SubscriptionRequest) -> Result:
    number = request.board
    board = subscription_board(ctx, number)
    player = login(ctx, request, board=number).account
    if request.subscribe:
        return subscribe(ctx, player, board)
    return unsubscribe(ctx, player, board)


@handles(NotifyRequest)
def notify(ctx: Context, request: NotifyRequest) -> Result:
    # Word by word, as written: a word that is no number is refused before a later
    # board is looked up, and a missing board before a later word that is no number.
    numbers: list[int] = []
    for word in request.boards:
        if not (word.isascii() and word.isdigit()):
            raise usage_error(
                request,
                i18n._(
                    "'%(word)s' is not a board number: emergo notify USERID PASSWORD "
                    "[BOARD ...].",
                    word=word[:40],
                ),
            )
        numbers.append(watchable_board(ctx, word))
    return toggle_notifications(ctx, login(ctx, request).account, numbers)
