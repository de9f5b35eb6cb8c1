"""The robot accounts robot1 (weak), robot2 (medium) and robot3 (strong).

Plain players rows: the server knows them by their userids (pbm_emergo.robot.ROBOTS) and
plays their turns (pbm_emergo.app.robots). Their password_hash is not a hash (``!`` cannot start
one), so no password signs them in; they have no address, so they get no mail. Rated and
listed like anyone.

The upgrade refuses to run if one of these userids already belongs to a person (rename that
account first); the downgrade removes the robots unless they have played (then they stay,
as their boards and ratings point at them).

Revision ID: 0004_robots
Revises: 0003_accounts
Create Date: 2026-11-25 09:00:00

"""
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = '0004_robots'
down_revision: str | None = '0003_accounts'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ROBOTS = ('robot1', 'robot2', 'robot3')
NO_PASSWORD = '!robot: no password signs this account in'
START_RATING = 1600

players = sa.table(
    'players',
    sa.column('id', sa.Integer()),
    sa.column('userid', sa.String()),
    sa.column('userid_key', sa.String()),
    sa.column('password_hash', sa.String()),
    sa.column('created_at', sa.DateTime(timezone=True)),
    sa.column('rating', sa.Integer()),
    sa.column('rated_games', sa.Integer()),
    sa.column('won', sa.Integer()),
    sa.column('lost', sa.Integer()),
    sa.column('drawn', sa.Integer()),
    sa.column('is_admin', sa.Boolean()),
)
boards = sa.table(
    'boards', sa.column('white_player_id', sa.Integer()), sa.column('black_player_id', sa.Integer())
)


def upgrade() -> None:
    bind = op.get_bind()
    taken = bind.execute(
        sa.select(players.c.userid_key, players.c.password_hash).where(
            players.c.userid_key.in_(ROBOTS)
        )
    ).all()
    people = [key for key, password_hash in taken if password_hash != NO_PASSWORD]
    if people:
        raise RuntimeError(
            f"the userid(s) {', '.join(people)} belong to people: rename those accounts "
            "before adding the robot accounts"
        )
    now = datetime.now(UTC)
    if bind.dialect.name == 'sqlite':
        now = now.replace(tzinfo=None)  # stored as naive UTC there (UTCDateTime)
    have = {key for key, _ in taken}
    op.bulk_insert(players, [
        {
            'userid': userid, 'userid_key': userid, 'password_hash': NO_PASSWORD,
            'created_at': now, 'rating': START_RATING, 'rated_games': 0, 'won': 0,
            'lost': 0, 'drawn': 0, 'is_admin': False,
        }
        for userid in ROBOTS if userid not in have
    ])


def downgrade() -> None:
    played = sa.select(boards.c.white_player_id).union(sa.select(boards.c.black_player_id))
    op.execute(
        players.delete().where(
            players.c.userid_key.in_(ROBOTS),
            players.c.password_hash == NO_PASSWORD,
            players.c.id.not_in(played),
        )
    )
