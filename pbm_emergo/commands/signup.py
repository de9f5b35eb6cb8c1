"""``signup userid password [address ...]``: create an account."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import NEW_PASSWORD, WORD, Grammar, named, repeated
from pbm_emergo.commands.reasons import unfit
from pbm_emergo.game.languages import language_named
from pbm_emergo.game.requests import Password, SignupRequest

# signup's option for the language of the replies (``language=nl``).
LANGUAGE_OPTION = "language="


class SignupCommand(Command):
    name = "signup"
    grammar = Grammar(named(WORD, "userid"), NEW_PASSWORD, repeated(named(WORD, "address"), 0))
    description = "create an account; the addresses default to the one you write from"
    details = (
        "Creates the account USERID with PASSWORD. A userid has 2 to 16 characters (letters, "
        "digits, _ and -) and starts with a letter; command words, userids that read like "
        "an existing one (Bob_ or b0b next to bob) and the server's own names (robot4, "
        "admin2) are refused. Give the mail addresses you will play from; without any, the "
        "address of this mail is used. An address is registered once its owner confirms "
        "it: it is mailed a code (your own address gets it as the answer), to send back as "
        "'confirm CODE'; only mail your mail host proved to come from your address is "
        "registered at once. Passwords are stored only as argon2id hashes and never shown. "
        "Add language=nl (or en, de, fr) among the addresses for replies in that language "
        "(else the language your mail says it is written in, else English; see 'help "
        "language')."
    )

    def request(self, args: Arguments) -> SignupRequest:
        # No login: the account does not exist yet.
        words = args.words_of("address")
        options = [w for w in words if w.lower().startswith(LANGUAGE_OPTION)]
        language = None
        for option in options:
            language = language_named(option[len(LANGUAGE_OPTION) :])
            if language is None:
                raise self.usage_error(unfit("signup_language"))
        return self.made(
            SignupRequest, userid=args.word("userid"), password=Password(args.word("password")),
            addresses=tuple(w for w in words if w not in options), language=language,
        )
