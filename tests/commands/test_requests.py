"""Each command turns its line into its request value: the words by part as the grammar
bound them, board numbers parsed, the password a value nothing shows. Pure: no database,
no templates."""

from __future__ import annotations

import pytest

from pbm_emergo.commands.base import UsageError
from pbm_emergo.commands.language import LANGUAGE
from pbm_emergo.game.requests import (
    AnalyseRequest,
    AutoplayRequest,
    BoardRef,
    ChallengeRequest,
    ChangeAddressRequest,
    ChangePasswordRequest,
    ChatRequest,
    ConfirmRequest,
    GamesRequest,
    HelpRequest,
    HistoryRequest,
    ListRequest,
    MessageRequest,
    MoveRequest,
    MovesRequest,
    NotifyRequest,
    Password,
    PolicyRequest,
    PreviewRequest,
    QueueRequest,
    RecordRequest,
    Request,
    SeekRequest,
    SeeksRequest,
    ShowRequest,
    SignoffRequest,
    SignupRequest,
    StandingsRequest,
    SubscriptionRequest,
    Unfit,
    VacationRequest,
)
from pbm_emergo.game.words import Known


def request(line: str, known: Known | None = None) -> Request:
    return LANGUAGE.request(line, known or Known(), alone=True)


def test_a_move_names_its_board_login_and_move() -> None:
    move = request("emergo move 101#7 alice secret1 e4xc4#3")
    assert move == MoveRequest(
        command="emergo move", usage="emergo move board userid password MOVE[#n]",
        board=101, upto=7, userid="alice", password=Password("secret1"), move="e4xc4#3",
    )
    resign = request("Emergo Resign 0102 bob hush")
    assert isinstance(resign, MoveRequest)
    assert (resign.command, resign.board, resign.upto, resign.move) == (
        "emergo resign", 102, None, "resign"
    )


def test_a_password_is_never_shown() -> None:
    move = request("emergo move 101 alice secret1 e4")
    assert "secret1" not in repr(move)
    assert isinstance(move, MoveRequest) and move.password.text == "secret1"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("signup erin pw12 erin@example.org e2@example.org", SignupRequest(
            command="signup", usage="signup userid password [address ...]", userid="erin",
            password=Password("pw12"), addresses=("erin@example.org", "e2@example.org"),
        )),
        ("change password bob old1 new1", ChangePasswordRequest(
            command="change password", usage="change password userid old new",
            userid="bob", password=Password("old1"), new=Password("new1"),
        )),
        ("change address bob pw12 b@example.org", ChangeAddressRequest(
            command="change address", usage="change address userid password address ...",
            userid="bob", password=Password("pw12"), addresses=("b@example.org",),
        )),
        ("confirm ABCD-EFGH", ConfirmRequest(
            command="confirm", usage="confirm CODE", code=Password("ABCD-EFGH"),
        )),
        ("signoff bob pw12", SignoffRequest(
            command="signoff", usage="signoff userid password", userid="bob",
            password=Password("pw12"),
        )),
        ("vacation bob pw12 OFF", VacationRequest(
            command="vacation", usage="vacation userid password DAYS|off", userid="bob",
            password=Password("pw12"), days=None,
        )),
        ("list", ListRequest(command="list", usage="list")),
        ("message bob pw12 alice carol", MessageRequest(
            command="message", usage="message userid password to [to ...]", userid="bob",
            password=Password("pw12"), to=("alice", "carol"),
        )),
    ],
)
def test_account_requests(line: str, expected: Request) -> None:
    assert request(line) == expected


def test_board_requests() -> None:
    challenge = request("emergo challenge alice bob --nagtime=3 -unrated")
    assert isinstance(challenge, ChallengeRequest)
    assert (challenge.white, challenge.black, challenge.options) == (
        "alice", "bob", ("--nagtime=3", "-unrated")
    )
    queue = request("emergo queue 101 bob pw12 e4=d5 c3=g7")
    assert isinstance(queue, QueueRequest)
    assert (queue.board.number, queue.userid, queue.moves) == (101, "bob", ("e4=d5", "c3=g7"))
    assert request("emergo autoplay bob pw12 On") == AutoplayRequest(
        command="emergo autoplay", usage="emergo autoplay userid password on|off",
        userid="bob", password=Password("pw12"), on=True,
    )
    show = request("emergo show 101#3 alice ALL")
    assert isinstance(show, ShowRequest)
    assert show.targets == (BoardRef(101, 3), "alice")
    assert show.which == "all"
    games = request("emergo games bob next")
    assert isinstance(games, GamesRequest)
    assert (games.userids, games.which) == (("bob",), "next")
    moves = request("emergo moves 101#2")
    assert isinstance(moves, MovesRequest) and (moves.board.number, moves.board.upto) == (101, 2)
    assert isinstance(request("emergo record 101"), RecordRequest)
    preview = request("emergo preview 101 e4 e6")
    assert isinstance(preview, PreviewRequest) and preview.moves == ("e4", "e6")
    analyse = request("emergo analyze 101#4 bob pw12")
    assert isinstance(analyse, AnalyseRequest)
    assert (analyse.board.number, analyse.board.upto) == (101, 4)
    assert str(analyse.board.alone) == (
        "Write the board number alone: emergo analyze 101 USERID PASSWORD."
    )
    chat = request("emergo chat 101 bob pw12")
    assert isinstance(chat, ChatRequest) and chat.board.number == 101


def test_social_and_challenge_requests() -> None:
    sub = request("emergo sub all bob pw12")
    assert isinstance(sub, SubscriptionRequest)
    assert (sub.command, sub.board, sub.subscribe) == ("emergo sub", None, True)
    unsub = request("emergo unsubscribe 101 bob pw12")
    assert isinstance(unsub, SubscriptionRequest)
    assert (unsub.board, unsub.subscribe) == (101, False)
    notify = request("emergo notify bob pw12 101 x")
    assert isinstance(notify, NotifyRequest) and notify.boards == ("101", "x")
    standings = request("emergo ratings alice")
    assert isinstance(standings, StandingsRequest) and standings.userids == ("alice",)
    assert isinstance(request("emergo history"), HistoryRequest)
    seek = request("emergo seek bob pw12 off")
    assert isinstance(seek, SeekRequest) and seek.count == 0
    assert isinstance(request("emergo seeks"), SeeksRequest)
    limit = request("emergo limit bob pw12 5")
    assert isinstance(limit, PolicyRequest) and (limit.policy, limit.limit) == ("limit", 5)
    reject = request("emergo reject bob pw12")
    assert isinstance(reject, PolicyRequest) and (reject.policy, reject.limit) == ("reject", None)


def test_help_requests_carry_the_registry_entries() -> None:
    summary = request("help")
    assert isinstance(summary, HelpRequest)
    assert any(e.usage.startswith("emergo move board") for e in summary.entries)
    assert summary.topic is None and summary.unknown_topic is None and not summary.emergo
    move = request("emergo help move")
    assert isinstance(move, HelpRequest) and move.topic is not None
    assert move.topic.name == "emergo move"
    assert isinstance(request("help emergo"), HelpRequest)
    assert request("emergo help") == request("help emergo").__class__(
        command="emergo help", usage="emergo help", entries=summary.entries, emergo=True
    )
    # An unknown topic is shown only as far as masking shows it.
    unknown = request("help zorglub", Known())
    assert isinstance(unknown, HelpRequest) and unknown.unknown_topic == "********"
    known = request("help zorglub", Known(userids=frozenset({"zorglub"})))
    assert isinstance(known, HelpRequest) and known.unknown_topic == "zorglub"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("emergo move 1x1 alice pw12 e4",
         "'1x1' is not a board number (boards are numbered from 101)."),
        ("emergo subscribe one bob pw12",
         "The command emergo subscribe needs a board number or 'all' first: "
         "emergo subscribe 101 USERID PASSWORD."),
        ("emergo sub one bob pw12",
         "The command emergo subscribe needs a board number or 'all' first: "
         "emergo subscribe 101 USERID PASSWORD."),
        ("multiple", "'multiple' works only as the Subject of a mail, not inside one."),
        ("emergo mve 101", "There is no command 'emergo mve'. Did you mean 'emergo move'?"),
        ("emergo move " + " ".join(["x"] * 41), "The command has more than 40 arguments."),
    ],
)
def test_lines_without_a_request_are_unfit(line: str, reason: str) -> None:
    with pytest.raises(Unfit) as unfit:
        request(line)
    assert unfit.value.reason == reason


def test_a_wrong_value_is_a_usage_error_before_the_password() -> None:
    for line in ("vacation bob pw12 soon", "emergo autoplay bob pw12 maybe",
                 "emergo seek bob pw12 1000", "emergo limit bob pw12 many", "emergo show all"):
        with pytest.raises(UsageError) as usage:
            request(line)
        assert usage.value.template == "error/usage.txt.j2"


def test_a_line_naming_no_command_alone_is_answered_with_where_to_start() -> None:
    with pytest.raises(Unfit) as unfit:
        LANGUAGE.request("hello there", Known(), alone=True)
    assert unfit.value.start_here
    with pytest.raises(Unfit) as unfit:
        LANGUAGE.request("hello there", Known(), alone=False)
    assert not unfit.value.start_here
