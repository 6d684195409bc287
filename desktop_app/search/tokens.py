"""Word boundaries for scripts FTS5's unicode61 tokenizer does not split.

Chinese, Japanese and Korean are written without spaces, so unicode61 would index a whole run as
one token and a search for part of it would find nothing. Putting a space between their
characters, in the index and in queries alike, makes each character a token; a multi-character
query then becomes a phrase of consecutive characters.
"""

import functools
import re

from desktop_app.domain.search import CJK


@functools.cache
def _cjk() -> re.Pattern[str]:
    """Compiled for the first text that is not ASCII: the character class takes about 3 ms to
    compile, which every start-up that imports the index paid at import."""
    return re.compile(f"([{CJK}])")


def segment_cjk(text: str) -> str:
    if text.isascii():
        return text
    return _cjk().sub(r" \1 ", text)
