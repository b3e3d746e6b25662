"""A bigram character model as in a makemore-style first lecture, written as PyTorch users write
it: counts in a (27, 27) tensor filled by indexing, smoothed and normalised with keepdims, names
sampled with torch.multinomial from a seeded torch.Generator, the negative log-likelihood of the
counts, then the same model as a one-layer network (one_hot, exp, manual gradient descent with
W.data += -lr * W.grad). tests/test_lecture_scripts.py runs it with `import seqlab as torch` and
with torch.

    python tests/bigram_script.py
"""
import seqlab as torch
import seqlab.nn.functional as F


def load_words(path="/usr/share/dict/words", every=40):
    """Every `every`-th lowercase a-z word of the system word list (Debian's wamerican)."""
    with open(path) as f:
        words = [w.strip() for w in f]
    words = [w for w in words if w.isalpha() and w.isascii() and w.islower()]
    return words[::every]


def main(steps=50, n_samples=5):
    words = load_words()
    chars = sorted(set(''.join(words)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi['.'] = 0
    itos = {i: s for s, i in stoi.items()}
    V = len(stoi)

    # counting
    N = torch.zeros((V, V), dtype=torch.long)
    for w in words:
        chs = ['.'] + list(w) + ['.']
        for ch1, ch2 in zip(chs, chs[1:]):
            N[stoi[ch1], stoi[ch2]] += 1
    P = (N + 1).float()
    P /= P.sum(1, keepdims=True)

    g = torch.Generator().manual_seed(2147483647)
    samples = []
    for _ in range(n_samples):
        out = []
        ix = 0
        while True:
            p = P[ix]
            ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
            out.append(itos[ix])
            if ix == 0:
                break
        samples.append(''.join(out))

    log_likelihood = 0.0
    n = 0
    for w in words:
        chs = ['.'] + list(w) + ['.']
        for ch1, ch2 in zip(chs, chs[1:]):
            log_likelihood += torch.log(P[stoi[ch1], stoi[ch2]])
            n += 1
    count_nll = (-log_likelihood / n).item()
    print(f'counts: nll={count_nll:.4f} over {n} bigrams')

    # the same model as a neural net: one linear layer on one-hot inputs, trained by hand
    xs, ys = [], []
    for w in words:
        chs = ['.'] + list(w) + ['.']
        for ch1, ch2 in zip(chs, chs[1:]):
            xs.append(stoi[ch1])
            ys.append(stoi[ch2])
    xs = torch.tensor(xs)
    ys = torch.tensor(ys)
    num = xs.nelement()
    W = torch.randn((V, V), generator=g, requires_grad=True)
    first_loss = None
    for k in range(steps):
        xenc = F.one_hot(xs, num_classes=V).float()
        logits = xenc @ W
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdims=True)
        loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W ** 2).mean()
        if first_loss is None:
            first_loss = loss.item()
        W.grad = None
        loss.backward()
        W.data += -50 * W.grad
    print(f'net: loss {first_loss:.4f} -> {loss.item():.4f}; samples: {samples}')
    return dict(count_nll=count_nll, first_loss=first_loss, loss=loss.item(), samples=samples, N=N.tolist())


if __name__ == '__main__':
    main()
