"""The language of the web pages: the reader's switch (``?lang=nl``, kept in a cookie), else
their browser's ``Accept-Language``, else English.

A middleware decides it once a request and renders the request's pages in it
(:func:`pbm_emergo.views.i18n.speaking`); the response says which it is
(``Content-Language``) and on what it depends (``Vary``).
"""

from __future__ import annotations

from babel import negotiate_locale
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pbm_emergo.views import i18n

COOKIE = "lang"
QUERY = "lang"
COOKIE_AGE = 365 * 24 * 3600


def accepted(header: str) -> list[str]:
    """The language ranges of an ``Accept-Language`` header, most wanted first (q=0 left
    out; RFC 9110 12.5.4)."""
    ranked: list[tuple[float, int, str]] = []
    for at, item in enumerate(header.split(",")[:20]):
        tag, _, params = item.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                continue
        if tag and tag != "*" and quality > 0:
            ranked.append((-quality, at, tag.strip()))
    return [tag for _, _, tag in sorted(ranked)]


def page_language(request: Request) -> tuple[str, bool]:
    """The language of the pages of ``request``, and whether the reader chose it just now
    (``?lang=``: kept in the cookie)."""
    chosen = i18n.supported(request.query_params.get(QUERY))
    if chosen is not None:
        return chosen, True
    kept = i18n.supported(request.cookies.get(COOKIE))
    if kept is not None:
        return kept, False
    wanted = [tag.replace("-", "_") for tag in accepted(request.headers.get("accept-language", ""))]
    found = negotiate_locale(wanted, list(i18n.LANGUAGES), sep="_")
    return (i18n.supported(found) or i18n.DEFAULT), False


class LanguageMiddleware:
    """Renders each request's pages in its language (:func:`page_language`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        language, chosen = page_language(Request(scope))

        async def send_with_language(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Content-Language"] = language
                headers.add_vary_header("Accept-Language")
                headers.add_vary_header("Cookie")
                if chosen:
                    headers.append(
                        "Set-Cookie",
                        f"{COOKIE}={language}; Max-Age={COOKIE_AGE}; Path=/; SameSite=Lax",
                    )
            await send(message)

        with i18n.speaking(language):
            await self.app(scope, receive, send_with_language)
