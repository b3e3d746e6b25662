"""A character-level MLP language model as in a makemore-style second lecture (Bengio et al.
2003), written as PyTorch users write it: a context of block_size characters, an embedding
table C indexed by the batch, tanh hidden layer, F.cross_entropy, minibatches from
torch.randint with a seeded generator, manual updates `p.data += -lr * p.grad`, a learning-rate
sweep built with torch.linspace, evaluation under torch.no_grad(), and sampling with
torch.multinomial. tests/test_lecture_scripts.py runs it with `import seqlab as torch` and with
torch.

    python tests/mlp_script.py
"""
import random

import seqlab as torch
import seqlab.nn.functional as F


def load_words(path="/usr/share/dict/words", every=10):
    """Every `every`-th lowercase a-z word of the system word list (Debian's wamerican)."""
    with open(path) as f:
        words = [w.strip() for w in f]
    words = [w for w in words if w.isalpha() and w.isascii() and w.islower()]
    return words[::every]


def build_dataset(words, stoi, block_size):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + '.':
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    return torch.tensor(X), torch.tensor(Y)


def main(steps=2000, block_size=3, n_embd=10, n_hidden=100, batch_size=32):
    words = load_words()
    chars = sorted(set(''.join(words)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi['.'] = 0
    itos = {i: s for s, i in stoi.items()}
    V = len(itos)

    random.seed(42)
    random.shuffle(words)
    n1 = int(0.8 * len(words))
    Xtr, Ytr = build_dataset(words[:n1], stoi, block_size)
    Xdev, Ydev = build_dataset(words[n1:], stoi, block_size)

    g = torch.Generator().manual_seed(2147483647)
    C = torch.randn((V, n_embd), generator=g)
    W1 = torch.randn((block_size * n_embd, n_hidden), generator=g) * (5 / 3) / (block_size * n_embd) ** 0.5
    b1 = torch.randn(n_hidden, generator=g) * 0.01
    W2 = torch.randn((n_hidden, V), generator=g) * 0.01
    b2 = torch.randn(V, generator=g) * 0
    parameters = [C, W1, b1, W2, b2]
    print(sum(p.nelement() for p in parameters), 'parameters')
    for p in parameters:
        p.requires_grad = True

    lre = torch.linspace(-1, 0, steps)
    lrs = 10 ** lre  # the lecture's sweep, here decayed from 0.1 to 1
    lossi = []
    for i in range(steps):
        ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
        emb = C[Xtr[ix]]
        h = torch.tanh(emb.view(-1, block_size * n_embd) @ W1 + b1)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Ytr[ix])
        for p in parameters:
            p.grad = None
        loss.backward()
        lr = lrs[steps - 1 - i].item()
        for p in parameters:
            p.data += -lr * p.grad
        lossi.append(loss.log10().item())

    @torch.no_grad()
    def split_loss(X, Y):
        emb = C[X]
        h = torch.tanh(emb.view(emb.shape[0], -1) @ W1 + b1)
        return F.cross_entropy(h @ W2 + b2, Y).item()

    train_loss, dev_loss = split_loss(Xtr, Ytr), split_loss(Xdev, Ydev)
    print(f'train {train_loss:.4f}  dev {dev_loss:.4f}')

    samples = []
    for _ in range(5):
        out = []
        context = [0] * block_size
        while True:
            emb = C[torch.tensor([context])]
            h = torch.tanh(emb.view(1, -1) @ W1 + b1)
            probs = F.softmax(h @ W2 + b2, dim=1)
            ix = torch.multinomial(probs, num_samples=1, generator=g).item()
            context = context[1:] + [ix]
            out.append(ix)
            if ix == 0:
                break
        samples.append(''.join(itos[i] for i in out))
    print(samples)
    return dict(first_loss=10 ** lossi[0], train_loss=train_loss, dev_loss=dev_loss, samples=samples)


if __name__ == '__main__':
    main()
