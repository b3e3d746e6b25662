"""seqlab.lm: n-gram language models (KenLM-compatible ARPA files) and the Shannon game."""
