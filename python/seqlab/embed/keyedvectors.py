"""KeyedVectors: words and their vectors, as gensim.models.KeyedVectors.

Layout (shared by every model in seqlab.embed):
- ``index_to_key``: list of keys, most frequent first for trained models;
- ``key_to_index``: dict key -> row;
- ``vectors``: NumPy float32 array (len(index_to_key), vector_size), C-contiguous;
- per-key attributes (``count``) via ``get_vecattr`` / ``set_vecattr``, as gensim 4.
"""
import numpy as np


class KeyedVectors:
    def __init__(self, vector_size, count=0, dtype=np.float32):
        self.vector_size = int(vector_size)
        self.index_to_key = []
        self.key_to_index = {}
        self.vectors = np.zeros((count, self.vector_size), dtype=dtype)
        self.expandos = {}

    def __len__(self):
        return len(self.index_to_key)

    def __contains__(self, key):
        return key in self.key_to_index

    def get_index(self, key):
        try:
            return self.key_to_index[key]
        except KeyError:
            raise KeyError(f"Key '{key}' not present in vocabulary") from None

    def get_vector(self, key, norm=False):
        v = self.vectors[self.get_index(key)]
        if norm:
            n = np.linalg.norm(v)
            return v / n if n > 0 else v
        return v

    def __getitem__(self, key):
        if isinstance(key, str):
            return self.get_vector(key)
        return np.vstack([self.get_vector(k) for k in key])

    def get_vecattr(self, key, attr):
        return self.expandos[attr][self.get_index(key)]

    def set_vecattr(self, key, attr, value):
        arr = self.expandos.setdefault(attr, np.zeros(len(self.index_to_key), dtype=np.int64))
        arr[self.get_index(key)] = value
