"""Tokenizers: text -> a list of token strings, and back.

CharTokenizer splits into characters; WordTokenizer splits on whitespace and, by default,
splits punctuation off words (torchtext's "basic_english" in spirit). Tested in tests/test_data.py.
"""

import re

__all__ = ["CharTokenizer", "WordTokenizer"]


class CharTokenizer:
    """Text -> its characters.

        >>> CharTokenizer()("In the")
        ['I', 'n', ' ', 't', 'h', 'e']

    lower: lowercase the text first.
    """

    def __init__(self, lower=False):
        self.lower = lower

    def __call__(self, text):
        if not isinstance(text, str):
            raise TypeError(f"CharTokenizer: expected a str, got {type(text).__name__}")
        return list(text.lower() if self.lower else text)

    def detokenize(self, tokens):
        """The inverse: the characters joined. detokenize(tok(s)) == s (lowercased if lower)."""
        return "".join(tokens)

    def __repr__(self):
        return f"CharTokenizer(lower={self.lower})"


class WordTokenizer:
    """Text -> words, with punctuation split off as tokens of its own.

        >>> WordTokenizer(lower=True)("And God said, Let there be light: and there was light.")
        ['and', 'god', 'said', ',', 'let', 'there', 'be', 'light', ':', 'and', 'there', 'was', 'light', '.']

    A word is a run of letters, digits and underscores, with apostrophes allowed inside it
    ("father's", "don't" stay whole); every other non-space character is a token by itself.
    With split_punctuation=False it is a plain whitespace tokenizer (str.split).
    lower: lowercase the text first.
    """

    WORD = re.compile(r"\w+(?:['’]\w+)*|[^\w\s]")
    _SPACE_BEFORE = re.compile(r" ([.,;:!?)\]}])")
    _SPACE_AFTER = re.compile(r"([(\[{]) ")

    def __init__(self, lower=False, split_punctuation=True):
        self.lower = lower
        self.split_punctuation = split_punctuation

    def __call__(self, text):
        if not isinstance(text, str):
            raise TypeError(f"WordTokenizer: expected a str, got {type(text).__name__}")
        if self.lower:
            text = text.lower()
        return self.WORD.findall(text) if self.split_punctuation else text.split()

    def detokenize(self, tokens):
        """Tokens joined by spaces, with no space before , . ; : ! ? ) and none after (.

        An approximation of the original spacing: tokenizing the result gives `tokens` back.
        """
        text = " ".join(tokens)
        if self.split_punctuation:
            text = self._SPACE_AFTER.sub(r"\1", self._SPACE_BEFORE.sub(r"\1", text))
        return text

    def __repr__(self):
        return f"WordTokenizer(lower={self.lower}, split_punctuation={self.split_punctuation})"
