"""The game record file (pbm_emergo.rules.record): writing, reading, replaying, and the
errors that name the line and the move."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm_emergo.rules import CELLS, Game
from pbm_emergo.rules.record import (
    BLACK_WINS,
    DRAW,
    MARKS,
    RESULTS,
    UNFINISHED,
    WHITE_WINS,
    GameRecord,
    RecordedMove,
    RecordError,
    format_record,
    parse_record,
    replay,
    result_token,
)

CORPUS = json.loads((Path(__file__).parent / "data" / "games.json").read_text())
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def corpus_game(name: str) -> Game:
    entry = CORPUS[name]
    return Game.from_moves(entry["moves"], blocked="draw" if entry.get("blocked") else "loss")


def record_of(game: Game, **tags: str) -> GameRecord:
    outcome = game.outcome()
    result = result_token(outcome.winner) if outcome else UNFINISHED
    return GameRecord(
        tuple({"White": "alice", "Black": "bob", **tags, "Result": result}.items()),
        tuple(RecordedMove(str(m)) for m in game.moves),
        result,
    )


# -- the text ----------------------------------------------------------------------------


def test_a_record_reads_as_documented() -> None:
    record = GameRecord(
        (("Event", "Emergo board 101"), ("White", "alice"), ("Black", "bob"),
         ("Result", UNFINISHED)),
        (
            RecordedMove("e4", value=10),
            RecordedMove("d6", mark="?", value=-125, best="c4", comment="oops"),
            RecordedMove("c4", value=1, forced=True),
        ),
        UNFINISHED,
    )  # fmt: skip
    assert format_record(record) == (
        '[Event "Emergo board 101"]\n'
        '[White "alice"]\n'
        '[Black "bob"]\n'
        '[Result "*"]\n'
        "\n"
        "1. e4 {[%eval +0.10]} 1... d6? {[%eval -1.25] [%best c4] oops} 2. c4\n"
        "{[%eval #+]} *\n"
    )


def test_lines_are_wrapped_and_read_back() -> None:
    game = corpus_game(sorted(CORPUS)[0])
    text = format_record(record_of(game))
    assert all(len(line) <= 79 for line in text.splitlines())
    assert parse_record(text) == record_of(game)


def test_comments_keep_braces_backslashes_and_brackets() -> None:
    move = RecordedMove("e4", comment="a } b \\ c [%eval +9.99] {d}")
    record = GameRecord((), (move,), UNFINISHED)
    text = format_record(record)
    assert parse_record(text).moves[0].comment == "a } b \\ c [%eval +9.99] {d}"
    assert parse_record(text).moves[0].value is None


def test_tag_values_keep_quotes_and_backslashes() -> None:
    record = GameRecord((("Site", 'the "club" \\ home'),), (), UNFINISHED)
    assert parse_record(format_record(record)).tag("Site") == 'the "club" \\ home'


def test_reading_is_lenient_where_pgn_is() -> None:
    text = '[White "a"]\r\n\r\n1.E4 {one}{two} D6 2. C4X 0-1\r\n'
    record = parse_record(text)
    assert [m.notation for m in record.moves] == ["e4", "d6", "c4x"]
    assert record.moves[0].comment == "one two"
    assert record.result == BLACK_WINS
    # Move numbers may be left out.
    assert parse_record("e4 d6 *").moves == (RecordedMove("e4"), RecordedMove("d6"))


@pytest.mark.parametrize(
    ("winner", "finished", "token"),
    [("white", True, WHITE_WINS), ("black", True, BLACK_WINS), (None, True, DRAW),
     (None, False, UNFINISHED)],
)  # fmt: skip
def test_result_tokens(winner: str | None, finished: bool, token: str) -> None:
    assert result_token(winner, finished) == token


# -- malformed files ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "move", "says"),
    [
        ('[Event "x"\n\n1. e4 *\n', 1, None, "not a tag pair"),
        ('[Event "x"]\n[Event "y"]\n\n*\n', 2, None, "occurs twice"),
        ("1. e4 d6\n2. c4\n", 2, None, "do not end with a result"),
        ("1. e4\n\n2. d6 *\n", 3, 2, "2. stands where 1... belongs"),
        ("1. e4 d6 3. c4 *\n", 1, 3, "3. stands where 2. belongs"),
        ("1. e4 {never closed\n*\n", 1, None, "not closed"),
        ("{first} 1. e4 *\n", 1, None, "before the first move"),
        ("1. e4 z9 *\n", 1, None, "'z9' is not a move"),
        ("1. e4 * d6\n", 1, None, "after the result"),
        ("1. e4 {[%eval lots]} *\n", 1, 1, "[%eval lots]"),
        ("1. e4 {[%best zz]} *\n", 1, 1, "[%best zz]"),
        ("1. e4 {[%eval +1.00] [%eval +2.00]} *\n", 1, 1, "two [%eval]"),
        ("1. e4 {[%what]} *\n", 1, None, "an engine note is"),
        ('[Result "1-0"]\n\n1. e4 *\n', 3, None, 'Result says "1-0"'),
    ],
)
def test_a_malformed_record_names_its_line(
    text: str, line: int, move: int | None, says: str
) -> None:
    with pytest.raises(RecordError) as caught:
        parse_record(text)
    assert caught.value.line == line
    assert caught.value.move == move
    assert says in str(caught.value)
    assert str(caught.value).startswith(f"line {line}")


@pytest.mark.parametrize(
    ("text", "line", "move", "says"),
    [
        ("1. e5 *\n", 1, 1, "e5"),  # no entry on the centre first
        ("1. e4 d6\n2. e4 *\n", 2, 3, "e4"),
        ('[Blocked "maybe"]\n\n*\n', 1, None, '"loss" or "draw"'),
    ],
)
def test_an_illegal_move_names_its_line_and_number(
    text: str, line: int, move: int | None, says: str
) -> None:
    with pytest.raises(RecordError) as caught:
        replay(parse_record(text))
    assert (caught.value.line, caught.value.move) == (line, move)
    assert says in caught.value.reason


def test_a_result_the_board_contradicts_is_refused() -> None:
    game = corpus_game("blocked")
    record = record_of(game)
    wrong = WHITE_WINS if record.result != WHITE_WINS else BLACK_WINS
    text = format_record(GameRecord(record.tags[:-1], record.moves, wrong))
    with pytest.raises(RecordError) as caught:
        replay(parse_record(text))
    assert caught.value.move == len(game.moves)
    assert "blocked" in caught.value.reason


def test_moves_after_the_end_are_refused() -> None:
    game = corpus_game("blocked")
    moves = [str(m) for m in game.moves]
    text = " ".join([*moves, "e4", "*"])
    with pytest.raises(RecordError) as caught:
        replay(parse_record(text))
    assert caught.value.move == len(moves) + 1
    assert "over" in caught.value.reason


def test_a_game_the_board_did_not_end_may_have_any_result() -> None:
    record = parse_record("1. e4 d6 1-0\n")  # resigned, forfeited...
    assert replay(record).position == Game.from_moves(["e4", "d6"]).position


# -- round trips -------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_every_corpus_game_replays_to_its_final_position(name: str) -> None:
    game = corpus_game(name)
    blocked = "draw" if CORPUS[name].get("blocked") else "loss"
    text = format_record(record_of(game, Blocked=blocked))
    replayed = replay(parse_record(text))
    assert replayed.position == game.position
    assert replayed.outcome() == game.outcome()


@SETTINGS
@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=200))
def test_random_games_round_trip(choices: list[int]) -> None:
    game = Game()
    for choice in choices:
        if game.outcome() is not None:
            break
        legal = game.position.legal_moves()
        game.play(legal[choice % len(legal)])
    record = record_of(game)
    back = parse_record(format_record(record))
    assert back == record
    assert replay(back).position == game.position


CELL = st.sampled_from(CELLS)
NOTATION = st.one_of(
    CELL,
    st.tuples(CELL, CELL).map(lambda c: f"{c[0]}-{c[1]}"),
    st.lists(CELL, min_size=2, max_size=5).map("x".join),
)
# Comments of any text but control characters (whitespace is not significant).
COMMENT = st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=40)
TAG_VALUE = st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=30)


@st.composite
def recorded_moves(draw: st.DrawFn) -> RecordedMove:
    forced = draw(st.booleans())
    value = draw(st.one_of(st.none(), st.integers(-100_000, 100_000)))
    return RecordedMove(
        draw(NOTATION),
        mark=draw(st.sampled_from(("", *MARKS))),
        value=value,
        forced=forced and bool(value),
        best=draw(st.one_of(st.none(), NOTATION)),
        comment=draw(COMMENT),
    )


RECORDS = st.builds(
    GameRecord,
    st.dictionaries(
        st.from_regex(r"[A-Za-z0-9_]{1,12}", fullmatch=True), TAG_VALUE, max_size=8
    ).map(lambda d: tuple(d.items())),  # fmt: skip
    st.lists(recorded_moves(), max_size=30).map(tuple),
    st.sampled_from(RESULTS),
)


@SETTINGS
@given(RECORDS)
def test_any_record_reads_back_as_written(record: GameRecord) -> None:
    if record.tag("Result") not in (None, record.result):
        with pytest.raises(RecordError):
            parse_record(format_record(record))
        return
    assert parse_record(format_record(record)) == record


@SETTINGS
@given(st.text(max_size=300))
def test_any_text_is_a_record_or_a_record_error(text: str) -> None:
    try:
        record = parse_record(text)
    except RecordError as err:
        assert err.line >= 1
        return
    assert parse_record(format_record(record)) == record
