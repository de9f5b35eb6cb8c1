"""The value marks of a rendered text: taken out the same way however the marks lie, and
a rendered text put into another template marks its values as before."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pbm_emergo.views import rendered
from pbm_emergo.views.rendered import CLOSE, OPEN

MARKED = st.text(alphabet=st.sampled_from(["a", "b", " ", OPEN, CLOSE]), max_size=40)


@given(MARKED)
def test_unmark_finds_the_spans_whether_the_marks_are_flat_or_not(marked: str) -> None:
    # _unmark_nested walks every mark, the way all texts were taken apart before.
    assert rendered.unmark(marked) == rendered._unmark_nested(marked)


@given(MARKED)
def test_a_rendered_text_marks_its_values_again_as_its_spans_say(marked: str) -> None:
    text = rendered.rendered(marked)
    again = rendered.Rendered(str(text), text.spans)  # no source: marked from its spans
    assert text.marked() == again.marked()
    html = rendered.rendered_markup(marked)
    assert html.marked() == rendered.RenderedMarkup(str(html), html.spans).marked()


def test_a_flat_text_unmarks_to_its_values() -> None:
    marked = f"Board {OPEN}101{CLOSE}: {OPEN}alice{CLOSE}{OPEN}{CLOSE} to move"
    assert rendered.unmark(marked) == ("Board 101: alice to move", ((6, 9), (11, 16)))


@given(MARKED)
def test_a_rendered_text_has_the_spans_unmark_finds(marked: str) -> None:
    for made in (rendered.rendered(marked), rendered.rendered_markup(marked)):
        assert (str(made), made.spans) == rendered._unmark_nested(marked)
