"""``list``: the games this server hosts and how busy they are."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.game.requests import ListRequest


class ListCommand(Command):
    name = "list"
    description = "the games this server hosts and how many boards are active"

    def request(self, args: Arguments) -> ListRequest:
        return self.made(ListRequest)
