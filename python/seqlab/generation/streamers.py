"""Streamers: generate(..., streamer=s) hands s the prompt, then each step's new tokens, so a
notebook shows the text while it is being generated. Hugging Face's interface
(transformers.generation.streamers): put(token_ids) and end(). Tests: tests/test_generation.py."""
import numpy as np

from .. import _core

__all__ = ["BaseStreamer", "TextStreamer"]


class BaseStreamer:
    """put(value) receives the token ids generate() has: the prompt (1, L) first, then the new
    token of each step (1,); end() is called once after the last step."""

    def put(self, value):
        raise NotImplementedError(f"{type(self).__name__} must implement put(value)")

    def end(self):
        raise NotImplementedError(f"{type(self).__name__} must implement end()")


class TextStreamer(BaseStreamer):
    """Prints the text of one sequence as it is generated.

    tokenizer: an object with decode(ids) -> str (a Hugging Face tokenizer), or a vocabulary, a
    sequence of token strings indexed by id (as seqlab.data's corpora return), joined by sep
    ("" for characters, " " for words). skip_prompt: print only the new text.

    With a vocabulary each token's text is printed as it comes. With a decode() tokenizer, text is
    printed up to its last space (or whole at a newline), as Hugging Face's TextStreamer does, since
    a subword's text can change once the next one is decoded with it."""

    def __init__(self, tokenizer, skip_prompt=False, sep="", **decode_kwargs):
        if not callable(getattr(tokenizer, "decode", None)):
            try:
                vocab = [str(t) for t in tokenizer]
            except TypeError:
                raise TypeError(f"TextStreamer: tokenizer must have decode(ids) or be a sequence of token strings, "
                                f"got {type(tokenizer).__name__}") from None
            tokenizer = _VocabDecoder(vocab, sep)
        self.tokenizer, self.skip_prompt, self.decode_kwargs = tokenizer, skip_prompt, decode_kwargs
        self.token_cache, self.print_len, self.next_tokens_are_prompt = [], 0, True

    def put(self, value):
        ids = value.numpy() if isinstance(value, _core.Tensor) else np.asarray(value)
        if ids.ndim > 1 and ids.shape[0] > 1:
            raise ValueError(f"TextStreamer: streams one sequence at a time, got a batch of {ids.shape[0]} "
                             f"(shape {ids.shape})")
        ids = ids.reshape(-1).tolist()
        if self.skip_prompt and self.next_tokens_are_prompt:
            self.next_tokens_are_prompt = False
            return
        self.next_tokens_are_prompt = False
        self.token_cache.extend(ids)
        text = self.tokenizer.decode(self.token_cache, **self.decode_kwargs)
        if isinstance(self.tokenizer, _VocabDecoder):  # a token's text is final: print it now
            printable = text[self.print_len:]
            self.print_len = len(text)
        elif text.endswith("\n"):
            printable = text[self.print_len:]
            self.token_cache, self.print_len = [], 0
        else:
            printable = text[self.print_len:text.rfind(" ") + 1]
            self.print_len += len(printable)
        self.on_finalized_text(printable)

    def end(self):
        printable = ""
        if self.token_cache:
            text = self.tokenizer.decode(self.token_cache, **self.decode_kwargs)
            printable = text[self.print_len:]
        self.token_cache, self.print_len, self.next_tokens_are_prompt = [], 0, True
        self.on_finalized_text(printable, stream_end=True)

    def on_finalized_text(self, text, stream_end=False):
        """Where the text goes: printed, flushed, a newline at the end. Override to send it elsewhere."""
        print(text, flush=True, end="" if not stream_end else None)


class _VocabDecoder:
    def __init__(self, vocab, sep):
        self.vocab, self.sep = vocab, sep

    def decode(self, ids):
        for i in ids:
            if not 0 <= i < len(self.vocab):
                raise IndexError(f"TextStreamer: token id {i} is outside the vocabulary of {len(self.vocab)} tokens")
        return self.sep.join(self.vocab[i] for i in ids)
