"""The language a mail's own words are written in, where it can be told: the replies to a
sender who has chosen none and whose mail does not say (no ``Content-Language``) are in it.

The detector is py3langid's naive Bayes model over all of its languages (deterministic: the
same text is always told the same), so that a language of none of ours (Spanish) is told as
itself and not as the nearest of ours. Only a confident answer that is one of our languages,
for a text long enough to tell, counts; else None (the replies stay English). The model is
loaded once a process, on the first text to tell (about half a second and 100 MB): a mail
whose language something else decided never loads it. ``serve``'s fork server loads it
before it forks the helpers (:func:`load_model`), so that its inbox workers share one copy.
"""

from __future__ import annotations

from functools import cache

from py3langid.langid import MODEL_FILE, LanguageIdentifier

from pbm_emergo.game.languages import LANGUAGES

# Fewer letters than this tell no language reliably ("Guten Tag", "gg").
MIN_LETTERS = 20
# The probability the detector must give its answer (calibrated over its ~100 languages).
MIN_CONFIDENCE = 0.9


@cache
def _identifier() -> LanguageIdentifier:
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def load_model() -> None:
    """Load the detector now, not on the first text to tell: in a process that forks others,
    which then share its pages (the model's arrays, which nobody writes)."""
    _identifier()


def model_loaded() -> bool:
    """Whether this process has the detector loaded."""
    return _identifier.cache_info().currsize > 0


def language_of_text(text: str) -> str | None:
    """The language of ours that ``text`` is confidently written in, else None (too short,
    unsure, or a language of none of ours)."""
    if sum(1 for letter in text if letter.isalpha()) < MIN_LETTERS:
        return None
    language, confidence = _identifier().classify(text)
    return language if language in LANGUAGES and confidence >= MIN_CONFIDENCE else None
