"""seqlab.embed.Word2Vec vs gensim.models.Word2Vec: training speed and analogy accuracy.

Skip-gram and CBOW with negative sampling on the King James Bible (seqlab.data.corpora.kjv,
train split), the same parameters and threads for both, each library timed in its own block.
Accuracy: 3CosAdd (Mikolov et al. 2013) top-1 on (a) the planted-analogies corpus, every
question, (b) questions-words.txt items whose four words are in the KJV vocabulary.

    python benchmarks/word2vec.py [--workers 2] [--epochs 5] [--repeats 1]

On a shared machine the speeds move with the load: compare the ratio, measured in one run;
--repeats N times both libraries N times, alternating, and prints every ratio and their median
(words/s: medians; accuracies: the first repeat's).
"""
import argparse
import os
import time

import numpy as np

from seqlab.data import corpora
import timing  # noqa: E402  (benchmarks/timing.py: the header line)


def analogy_accuracy(index_to_key, vectors, questions):
    """Top-1 3CosAdd accuracy over the questions whose four words are known; (accuracy, n)."""
    key_to_index = {w: i for i, w in enumerate(index_to_key)}
    qs = [q for q in questions if all(w in key_to_index for w in q)]
    if not qs:
        return float("nan"), 0
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    a, b, c, d = (np.array([key_to_index[q[k]] for q in qs]) for k in range(4))
    correct = 0
    for start in range(0, len(qs), 1024):
        sl = slice(start, start + 1024)
        scores = (unit[b[sl]] - unit[a[sl]] + unit[c[sl]]) @ unit.T
        rows = np.arange(scores.shape[0])
        for excluded in (a[sl], b[sl], c[sl]):
            scores[rows, excluded] = -np.inf
        correct += int((scores.argmax(axis=1) == d[sl]).sum())
    return correct / len(qs), len(qs)


def run(library, sentences, params, epochs):
    """(words/s over training, index_to_key, vectors); build_vocab is not timed."""
    if library == "seqlab":
        from seqlab.embed import Word2Vec
        model = Word2Vec(**params, progress=False)
    else:
        from gensim.models import Word2Vec
        model = Word2Vec(**params)
    model.build_vocab(sentences)
    words = model.corpus_total_words * epochs
    t0 = time.perf_counter()
    model.train(sentences, total_examples=model.corpus_count, epochs=epochs)
    seconds = time.perf_counter() - t0
    return words / seconds, list(model.wv.index_to_key), np.asarray(model.wv.vectors)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    kjv = [list(line) for line in corpora.kjv().lines("train")]
    planted = corpora.planted_analogies()
    planted_sentences = [list(line) for line in planted.lines("train")]
    questions = corpora.analogies().questions()
    n_words = sum(len(s) for s in kjv)
    print(timing.header())
    print(f"kjv train: {len(kjv)} sentences, {n_words} words; {os.cpu_count()} CPUs; workers={args.workers}, "
          f"epochs={args.epochs}")
    for name, sg in (("skip-gram NS", 1), ("CBOW NS", 0)):
        params = dict(vector_size=100, window=5, min_count=5, sample=1e-3, negative=5, sg=sg, seed=1,
                      workers=args.workers, epochs=args.epochs)
        planted_params = dict(params, vector_size=32, window=2, min_count=1)
        result, speeds = {}, {"seqlab": [], "gensim": []}
        for repeat in range(args.repeats):
            for library in ("seqlab", "gensim"):
                speed, keys, vectors = run(library, kjv, params, args.epochs)
                speeds[library].append(speed)
                if repeat == 0:
                    _, pkeys, pvectors = run(library, planted_sentences, planted_params, args.epochs)
                    result[library] = (analogy_accuracy(pkeys, pvectors, planted.questions),
                                       analogy_accuracy(keys, vectors, questions))
        (s_pl, s_qw), (g_pl, g_qw) = result["seqlab"], result["gensim"]
        s_speed, g_speed = np.median(speeds["seqlab"]), np.median(speeds["gensim"])
        ratios = np.array(speeds["seqlab"]) / np.array(speeds["gensim"])
        print(f"\n{name}")
        print(f"  words/s     seqlab {s_speed:>10,.0f}   gensim {g_speed:>10,.0f}   ratio {s_speed / g_speed:.2f}")
        if args.repeats > 1:
            print(f"  ratios      {' '.join(f'{r:.2f}' for r in ratios)}   (median {np.median(ratios):.2f})")
        print(f"  per core    seqlab {s_speed / args.workers:>10,.0f}   gensim {g_speed / args.workers:>10,.0f}")
        print(f"  planted     seqlab {s_pl[0]:.3f}   gensim {g_pl[0]:.3f}   ({s_pl[1]} questions)")
        print(f"  q-words     seqlab {s_qw[0]:.3f}   gensim {g_qw[0]:.3f}   ({s_qw[1]} / {g_qw[1]} questions in vocab)")


if __name__ == "__main__":
    main()
