"""seqlab.embed: word embeddings with gensim's names and arguments.

    from seqlab.embed import Word2Vec
    model = Word2Vec(sentences, vector_size=100, window=5, min_count=5, sg=1, workers=2, seed=1)
    model.wv.most_similar(positive=["king", "woman"], negative=["man"])

Word2Vec and FastText (word2vec.py, fasttext.py), GloVe (glove.py), PPMI + truncated SVD
(ppmi.py); KeyedVectors (keyedvectors.py) holds the vectors, answers similarity and analogy
queries and reads and writes the word2vec text and binary formats. Training runs in C++
threads without the GIL. RULE_DEFAULT, RULE_DISCARD, RULE_KEEP: the answers of a build_vocab
trim_rule, as gensim.utils'."""
from .keyedvectors import KeyedVectors  # noqa: F401
from .word2vec import RULE_DEFAULT, RULE_DISCARD, RULE_KEEP, Word2Vec  # noqa: F401
from .fasttext import FastText, FastTextKeyedVectors  # noqa: F401
from .glove import GloVe  # noqa: F401
from .ppmi import PPMI  # noqa: F401
