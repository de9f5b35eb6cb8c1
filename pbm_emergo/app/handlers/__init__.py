"""The shell's side of the mail commands: one handler per request type
(:mod:`pbm_emergo.game.requests`), which finds the boards and players the request names,
verifies its password, calls the game's operations and renders the replies.

Handlers are grouped by family, one module each; :func:`handles` registers a handler for its
request type, and :func:`handler_for` finds it (the modules are loaded on first use).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

from pbm_emergo.app.context import Context
from pbm_emergo.app.results import Result
from pbm_emergo.game.requests import Request

R = TypeVar("R", bound=Request)
Handler = Callable[[Context, Any], Result]
TypedHandler = Callable[[Context, R], Result]

# The handler modules, by family.
MODULES = ["help", "accounts", "social", "play", "boards", "challenges", "events", "settings"]

HANDLERS: dict[type[Request], Handler] = {}


def handles(kind: type[R]) -> Callable[[TypedHandler[R]], TypedHandler[R]]:
    """Register the decorated function as the handler of requests of ``kind``."""

    def register(handler: TypedHandler[R]) -> TypedHandler[R]:
        HANDLERS[kind] = handler
        return handler

    return register


@cache
def handlers() -> dict[type[Request], Handler]:
    """Every handler, by the request type it runs (the modules loaded once)."""
    for name in MODULES:
        importlib.import_module(f"pbm_emergo.app.handlers.{name}")
    return HANDLERS


def handler_for(request: Request) -> Handler:
    """The handler of ``request``'s type."""
    return handlers()[type(request)]


def handle(ctx: Context, request: Request) -> Result:
    """Run ``request`` in ``ctx``: its result, or a Refused."""
    return handler_for(request)(ctx, request)
