"""Every request a command makes has its handler in the shell (the shell is handed the mail
language, it never imports the command layer)."""

from __future__ import annotations

import inspect

import pytest

from pbm_emergo.app.handlers import handler_for, handlers
from pbm_emergo.commands.language import LANGUAGE
from pbm_emergo.commands.registry import all_commands
from pbm_emergo.game import requests
from pbm_emergo.game.words import Known

# One line of each command (multiple makes no request inside a mail).
LINES = {
    "help": "help move", "signup": "signup erin pw12", "change password": "change password a b c",
    "change address": "change address a pw12 a@example.org", "confirm": "confirm CODE",
    "signoff": "signoff a pw12", "vacation": "vacation a pw12 3", "list": "list",
    "message": "message a pw12 b", "emergo help": "emergo help",
    "emergo challenge": "emergo challenge a b", "emergo move": "emergo move 101 a pw12 e4",
    "emergo resign": "emergo resign 101 a pw12", "emergo queue": "emergo queue 101 a pw12 e4",
    "emergo autoplay": "emergo autoplay a pw12 on", "emergo show": "emergo show 101",
    "emergo games": "emergo games", "emergo moves": "emergo moves 101",
    "emergo record": "emergo record 101", "emergo analyse": "emergo analyse 101 a pw12",
    "emergo analyze": "emergo analyze 101 a pw12", "emergo preview": "emergo preview 101 e4",
    "emergo chat": "emergo chat 101 a pw12", "emergo subscribe": "emergo subscribe 101 a pw12",
    "emergo sub": "emergo sub all a pw12", "emergo unsubscribe": "emergo unsubscribe 101 a pw12",
    "emergo unsub": "emergo unsub all a pw12", "emergo notify": "emergo notify a pw12",
    "emergo standings": "emergo standings", "emergo ratings": "emergo ratings",
    "emergo history": "emergo history", "emergo seek": "emergo seek a pw12",
    "emergo seeks": "emergo seeks", "emergo accept": "emergo accept a pw12",
    "emergo reject": "emergo reject a pw12", "emergo limit": "emergo limit a pw12 3",
    "emergo rematch": "emergo rematch 101 a pw12", "emergo showas": "emergo showas 101 a",
    "all show": "all show a next", "emergo submit": "emergo submit 101 a pw12 e4",
    "emergo confirm": "emergo confirm 101 a pw12",
    "emergo events": "emergo events", "emergo event": "emergo event autumn",
    "emergo join": "emergo join autumn a pw12", "emergo withdraw": "emergo withdraw autumn a pw12",
    "emergo event create": "emergo event create autumn a pw12 swiss evpw",
    "delete": "delete a pw12", "forgot": "forgot a", "forgot password": "forgot password a",
    "reset": "reset CODE newpw12", "block": "block a pw12 b", "unblock": "unblock a pw12 b",
    "emergo note": "emergo note 101 a pw12 a plan",
    "timezone": "timezone a pw12 Europe/Amsterdam", "notify digest": "notify digest a pw12 18",
    "board": "board a pw12 list",
    "language": "language a pw12 de",
}


def test_every_request_type_has_a_handler() -> None:
    # The bases of families are never made themselves.
    bases = {requests.Request, requests.LoginRequest, requests.BoardRequest,
             requests.PlayersRequest}
    kinds = {
        kind for _, kind in inspect.getmembers(requests, inspect.isclass)
        if issubclass(kind, requests.Request) and kind not in bases
    }
    assert kinds <= set(handlers())


@pytest.mark.parametrize("command", [c.name for c in all_commands() if c.name != "multiple"])
def test_a_line_of_each_command_reaches_its_handler(command: str) -> None:
    request = LANGUAGE.request(LINES[command], Known(), alone=True)
    assert request.command in (command, "help")  # "emergo help move" is "help move"
    assert handler_for(request) is not None
