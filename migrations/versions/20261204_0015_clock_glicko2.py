"""Glicko-2 ratings, every finished rated game re-rated.

- players.deviation, players.volatility: the Glicko-2 rating deviation and volatility
  beside players.rating (350 and 0.06 for a player with no rated game).
- The ratings are computed again from the start: every player back to 1600, then the
  finished rated boards replayed in the order they finished (boards.finished_at, then the
  board number), each as one Glicko-2 rating period of its two players, by the glicko2
  library as the server rates a game (pbm_emergo/ratings). The rating_history lines, the
  boards' rating changes and the players' rating, deviation, volatility and rated_games
  are written anew.

The downgrade drops the two columns; the ratings stay as re-rated (Elo's numbers are not
kept).

Revision ID: 0015_clock_glicko2
Revises: 0014_clock_timezone
Create Date: 2026-12-01 13:00:00

"""
from collections.abc import Sequence

import glicko2
import sqlalchemy as sa
from alembic import op

revision: str = '0015_clock_glicko2'
down_revision: str | None = '0014_clock_timezone'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

START_RATING = 1600
START_DEVIATION = 350.0
START_VOLATILITY = 0.06

players = sa.table(
    'players',
    sa.column('id', sa.Integer()),
    sa.column('rating', sa.Integer()),
    sa.column('rated_games', sa.Integer()),
    sa.column('deviation', sa.Float()),
    sa.column('volatility', sa.Float()),
)
boards = sa.table(
    'boards',
    sa.column('number', sa.Integer()),
    sa.column('white_player_id', sa.Integer()),
    sa.column('black_player_id', sa.Integer()),
    sa.column('rated', sa.Boolean()),
    sa.column('status', sa.String()),
    sa.column('winner', sa.String()),
    sa.column('finished_at', sa.DateTime(timezone=True)),
    sa.column('white_rating_change', sa.Integer()),
    sa.column('black_rating_change', sa.Integer()),
)
history = sa.table(
    'rating_history',
    sa.column('player_id', sa.Integer()),
    sa.column('board_number', sa.Integer()),
    sa.column('rating_before', sa.Integer()),
    sa.column('rating_after', sa.Integer()),
    sa.column('created_at', sa.DateTime(timezone=True)),
)


def _after(
    player: tuple[int, float, float], opponent: tuple[int, float, float], score: float
) -> tuple[int, float, float]:
    rated = glicko2.Player(rating=player[0], rd=player[1], vol=player[2])
    rated.update_player([opponent[0]], [opponent[1]], [score])
    return round(rated.rating), float(rated.rd), float(rated.vol)


def upgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('deviation', sa.Float(), server_default='350.0', nullable=False)
        )
        batch_op.add_column(
            sa.Column('volatility', sa.Float(), server_default='0.06', nullable=False)
        )
    bind = op.get_bind()
    games = bind.execute(
        sa.select(
            boards.c.number, boards.c.white_player_id, boards.c.black_player_id,
            boards.c.winner, boards.c.finished_at,
        )
        .where(boards.c.status == 'finished', boards.c.rated.is_(True))
        .order_by(boards.c.finished_at, boards.c.number)
    ).all()
    standing: dict[int, tuple[int, float, float]] = {}
    counted: dict[int, int] = {}
    lines = []
    for number, white_id, black_id, winner, finished_at in games:
        white = standing.get(white_id, (START_RATING, START_DEVIATION, START_VOLATILITY))
        black = standing.get(black_id, (START_RATING, START_DEVIATION, START_VOLATILITY))
        score = 0.5 if winner is None else (1.0 if winner == 'white' else 0.0)
        standing[white_id] = _after(white, black, score)
        standing[black_id] = _after(black, white, 1 - score)
        for pid, before in ((white_id, white), (black_id, black)):
            counted[pid] = counted.get(pid, 0) + 1
            lines.append({
                'player_id': pid, 'board_number': number, 'rating_before': before[0],
                'rating_after': standing[pid][0], 'created_at': finished_at,
            })
        bind.execute(
            boards.update().where(boards.c.number == number).values(
                white_rating_change=standing[white_id][0] - white[0],
                black_rating_change=standing[black_id][0] - black[0],
            )
        )
    op.execute(history.delete())
    if lines:
        op.bulk_insert(history, lines)
    bind.execute(
        players.update().values(
            rating=START_RATING, deviation=START_DEVIATION, volatility=START_VOLATILITY,
            rated_games=0,
        )
    )
    for pid, (rating, deviation, volatility) in standing.items():
        bind.execute(
            players.update().where(players.c.id == pid).values(
                rating=rating, deviation=deviation, volatility=volatility,
                rated_games=counted[pid],
            )
        )


def downgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('volatility')
        batch_op.drop_column('deviation')
