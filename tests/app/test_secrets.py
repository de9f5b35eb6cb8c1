"""A scrubbed text kept with its value spans (a line's answer stored until a ``multiple``
mail's report is made): the same text as the scrubber makes, and the template's own words
still told from its values once stored and read back."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pbm_emergo.app.secrets import Secrets
from pbm_emergo.game.words import MASK
from pbm_emergo.views import rendered
from pbm_emergo.views.rendered import CLOSE, OPEN

# Texts of the secret's letters, spaces and value marks: the secret lies inside values, in
# the template's words, across a value's edge, next to other letters.
MARKED = st.lists(st.sampled_from(["ab", "a", "b", "c", " ", OPEN, CLOSE]), max_size=30).map(
    "".join
)


def _secrets() -> Secrets:
    secrets = Secrets(words={"abc"})
    secrets.add_password("ab")
    return secrets


@given(MARKED)
def test_a_kept_text_is_the_scrubbed_text(marked: str) -> None:
    text = rendered.rendered(marked)
    assert str(_secrets().scrub_kept(text)) == _secrets().scrub(text)


@given(MARKED)
def test_a_kept_text_read_back_needs_no_more_scrubbing(marked: str) -> None:
    kept = _secrets().scrub_kept(rendered.rendered(marked))
    back = rendered.rendered(kept.marked())
    assert str(back) == str(kept)
    assert _secrets().scrub(back) == str(back)


def test_a_password_that_is_a_template_word_stays_a_word_after_the_round_trip() -> None:
    secrets = Secrets()
    secrets.add_password("board")
    text = rendered.rendered(f"Your board: {OPEN}board 7{CLOSE}.")
    back = rendered.rendered(secrets.scrub_kept(text).marked())
    assert str(back) == f"Your board: {MASK} 7."
    assert secrets.scrub(back) == f"Your board: {MASK} 7."  # the word left alone again
    plain = "Your board: board 7."  # a text of unknown origin: masked everywhere
    assert str(secrets.scrub_kept(plain)) == f"Your {MASK}: {MASK} 7."
