"""Word boundaries for scripts FTS5's unicode61 tokenizer does not split.

Chinese, Japanese and Korean are written without spaces, so unicode61 would index a whole run as
one token and a search for part of it would find nothing. Putting a space between their
characters, in the index and in queries alike, makes each character a token; a multi-character
query then becomes a phrase of consecutive characters.
"""

import re

_CJK = re.compile(
    "([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f])"
)


def segment_cjk(text: str) -> str:
    if text.isascii():
        return text
    return _CJK.sub(r" \1 ", text)
