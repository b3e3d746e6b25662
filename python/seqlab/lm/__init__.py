"""seqlab.lm: n-gram language models (KenLM-compatible ARPA files) and the Shannon game.

    from seqlab.lm import NGram, shannon_game
    lm = NGram(order=5, smoothing="kneser_ney").fit(sentences)
"""
from .ngram import NGram, Interpolated, interpolate  # noqa: F401
from .shannon import ShannonResult, shannon_bounds, shannon_game, SHANNON_1951  # noqa: F401
