"""``language userid password LANG``: the language of the player's replies (``en``, ``nl``,
``de``, ``fr``). Command words stay English in every language."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import PASSWORD, USERID, WORD, Grammar, named
from pbm_emergo.game.languages import language_named
from pbm_emergo.game.requests import LanguageRequest


class LanguageCommand(Command):
    name = "language"
    grammar = Grammar(USERID, PASSWORD, named(WORD, "LANG"))
    description = "the language of your replies: en, nl, de or fr"
    details = (
        "Replies, errors, help and board mails come in that language: en (English), nl "
        "(Nederlands), de (Deutsch) or fr (Français). Until a player chooses, replies are in "
        "the language their signup mail said it was written in (its Content-Language), else "
        "the one its words are written in where that can be told, else English. Command "
        "words stay English in every language: a reply in Dutch still writes 'emergo move ...'."
    )

    def request(self, args: Arguments) -> LanguageRequest:
        language = language_named(args.word("lang"))
        if language is None:
            raise self.usage_error(
                "Write en, nl, de or fr after the password: language userid password nl."
            )
        userid, password = args.login()
        return self.made(LanguageRequest, userid=userid, password=password, language=language)
