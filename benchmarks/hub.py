"""Pretrained checkpoints: seqlab.hub.from_pretrained against transformers' own from_pretrained,
on the same checkpoint directory, for each architecture seqlab reads.

Models (random weights as transformers initialises them, made from a config and saved with
save_pretrained in a temporary directory; no download):
  tiny        the test suite's size: 24 wide, 3 layers, 4 heads (Llama: 2 key/value heads), vocabulary 61
  small       GPT-2 small's shape: 768 wide, 12 layers, 12 heads, vocabulary 50,257, 1,024
              positions (BLOOM: the same width, depth, heads and vocabulary; Llama: the same with
              4 key/value heads and a 2,048-wide SwiGLU feed-forward; T5: t5-small's encoder and
              decoder of 6 layers each, 512 wide, 8 heads, feed-forward 2,048, gated GELU, with
              GPT-2's vocabulary; DeBERTa-v2: deberta-v3-small's shape, 768 wide, 6 layers, 12
              heads, feed-forward 3,072, 256 log buckets up to 512, shared q/k projections, with
              GPT-2's vocabulary)

Columns:
  logits       the largest difference of seqlab's logits from transformers', relative to the
               largest logit, on a batch of 2 prompts of 16 tokens (T5: 16 source and 16 target
               tokens), in float32 and float64
  load (s)     from_pretrained of the directory to a model ready to run (median of --repeats)
  generate     100 new tokens, greedy, batch 1, from a 10-token prompt (T5: source), with the KV cache
  (tok/s)      (median of --repeats), both models in float32; the tokens are checked equal
  forward (ms) DeBERTa-v2, an encoder, has no generate(): the masked-LM logits of a batch of 8
               sequences of 128 tokens, instead, under no_grad (median of --repeats)

Each figure is printed beside transformers' and the ratio (transformers' time / seqlab's, > 1:
seqlab is faster). Timing follows benchmarks/timing.py: each library in blocks of its own, in
both orders, after a pause.

    python benchmarks/hub.py [--threads 2] [--repeats 3] [--sizes tiny,small] [--archs gpt2,deberta-v2]
"""
import argparse
import copy
import os
import sys
import tempfile

import numpy as np
import torch
import transformers

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402

import seqlab  # noqa: E402

transformers.logging.set_verbosity_error()
transformers.utils.logging.disable_progress_bar()

SIZES = {
    "tiny": dict(width=24, layers=3, heads=4, kv_heads=2, vocab=61, positions=128,
                 t5=dict(width=24, layers=2, heads=4), deberta=dict(layers=3, buckets=8)),
    "small": dict(width=768, layers=12, heads=12, kv_heads=4, vocab=50257, positions=1024,
                  t5=dict(width=512, layers=6, heads=8),  # t5-small's encoder and decoder
                  deberta=dict(layers=6, buckets=256)),  # deberta-v3-small's encoder
}
NEW_TOKENS, PROMPT = 100, 10


def hf_config(arch, s):
    if arch == "gpt2":
        return transformers.GPT2Config(vocab_size=s["vocab"], n_positions=s["positions"], n_embd=s["width"],
                                       n_layer=s["layers"], n_head=s["heads"], eos_token_id=None, bos_token_id=None)
    if arch == "llama":
        return transformers.LlamaConfig(vocab_size=s["vocab"], hidden_size=s["width"], num_hidden_layers=s["layers"],
                                        num_attention_heads=s["heads"], num_key_value_heads=s["kv_heads"],
                                        intermediate_size=8 * s["width"] // 3, eos_token_id=None, bos_token_id=None)
    if arch == "t5":
        t5 = s["t5"]
        return transformers.T5Config(vocab_size=s["vocab"], d_model=t5["width"], d_kv=t5["width"] // t5["heads"],
                                     num_heads=t5["heads"], d_ff=4 * t5["width"], num_layers=t5["layers"],
                                     feed_forward_proj="gated-gelu", eos_token_id=None, decoder_start_token_id=0)
    if arch == "deberta-v2":  # DeBERTa-v3's options
        d = s["deberta"]
        return transformers.DebertaV2Config(vocab_size=s["vocab"], hidden_size=s["width"], num_hidden_layers=d["layers"],
                                            num_attention_heads=s["heads"], intermediate_size=4 * s["width"],
                                            max_position_embeddings=512, relative_attention=True,
                                            position_buckets=d["buckets"], norm_rel_ebd="layer_norm",
                                            share_att_key=True, pos_att_type="p2c|c2p", position_biased_input=False,
                                            legacy=False)
    return transformers.BloomConfig(vocab_size=s["vocab"], hidden_size=s["width"], n_layer=s["layers"],
                                    n_head=s["heads"], eos_token_id=None, bos_token_id=None)


CLASSES = {"gpt2": transformers.GPT2LMHeadModel, "bloom": transformers.BloomForCausalLM,
           "llama": transformers.LlamaForCausalLM, "t5": transformers.T5ForConditionalGeneration,
           "deberta-v2": transformers.DebertaV2ForMaskedLM}
ENCODERS = ("deberta-v2",)
BATCH, LENGTH = 8, 128  # an encoder's forward


def make_checkpoint(arch, size, directory):
    torch.manual_seed(0)
    model = CLASSES[arch]._from_config(hf_config(arch, SIZES[size]), attn_implementation="eager").eval()
    model.save_pretrained(directory)  # transformers' own initialisation (normal, std 0.02)


def logit_differences(arch, directory):
    ids = np.random.default_rng(0).integers(0, 50, size=(2, 16))
    hf = CLASSES[arch].from_pretrained(directory, attn_implementation="eager").eval()
    out = []
    for sl_dtype, t_dtype in ((seqlab.float32, torch.float32), (seqlab.float64, torch.float64)):
        model = seqlab.hub.from_pretrained(directory, dtype=sl_dtype)
        inputs = (ids, ids[::-1].copy()) if arch == "t5" else (ids,)  # T5: source, target
        names = ("input_ids", "decoder_input_ids")
        with torch.no_grad():
            want = copy.deepcopy(hf).to(t_dtype)(**{n: torch.from_numpy(a) for n, a in zip(names, inputs)})
            want = want.logits.double().numpy()
        with seqlab.no_grad():
            got = model(*map(seqlab.tensor, inputs)).numpy().astype(np.float64)
        out.append(np.abs(got - want).max() / np.abs(want).max())
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sizes", default="tiny,small")
    ap.add_argument("--archs", default=",".join(CLASSES), help="of " + ", ".join(CLASSES))
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    seqlab.set_num_threads(args.threads)
    print(timing.header())
    print(f"threads {args.threads}; seqlab vs transformers {transformers.__version__} (torch {torch.__version__})")
    print(f"{'model':14s} {'logits f32':>10s} {'f64':>8s}   {'load s: seqlab':>14s} {'hf':>7s} {'ratio':>6s}   "
          f"{'gen tok/s: seqlab':>17s} {'hf':>7s} {'ratio':>6s}")
    for size in args.sizes.split(","):
        for arch in (a for a in args.archs.split(",") if a not in ENCODERS):
            with tempfile.TemporaryDirectory() as directory:
                make_checkpoint(arch, size, directory)
                f32, f64 = logit_differences(arch, directory)
                prompt = np.random.default_rng(1).integers(0, SIZES[size]["vocab"], size=(1, PROMPT))
                loaded = {}

                def load_seqlab():
                    loaded["seqlab"] = seqlab.hub.from_pretrained(directory)

                def load_hf():
                    loaded["hf"] = CLASSES[arch].from_pretrained(directory).eval()

                def gen_seqlab():
                    return loaded["seqlab"].generate(seqlab.tensor(prompt), max_new_tokens=NEW_TOKENS,
                                                     min_new_tokens=NEW_TOKENS).numpy()

                def gen_hf():
                    with torch.no_grad():
                        return loaded["hf"].generate(torch.from_numpy(prompt), max_new_tokens=NEW_TOKENS,
                                                     min_new_tokens=NEW_TOKENS, do_sample=False,
                                                     pad_token_id=0).numpy()

                load_s, load_h = timing.steady_seconds([load_seqlab, load_hf], args.repeats, 0.0, warmup=1)
                same = np.array_equal(gen_seqlab(), gen_hf())
                gen_s, gen_h = timing.steady_seconds([gen_seqlab, gen_hf], args.repeats, 0.0, warmup=1)
                print(f"{arch + ' ' + size:14s} {f32:10.1e} {f64:8.1e}   {load_s:14.3f} {load_h:7.3f} "
                      f"{load_h / load_s:6.2f}   {NEW_TOKENS / gen_s:17.1f} {NEW_TOKENS / gen_h:7.1f} "
                      f"{gen_h / gen_s:6.2f}" + ("" if same else "   (tokens differ!)"))
    print(f"\n{'model':18s} {'logits f32':>10s} {'f64':>8s}   {'load s: seqlab':>14s} {'hf':>7s} {'ratio':>6s}   "
          f"{'forward ms: seqlab':>18s} {'hf':>7s} {'ratio':>6s}   ({BATCH} x {LENGTH} tokens)")
    for size in args.sizes.split(","):
        for arch in (a for a in args.archs.split(",") if a in ENCODERS):
            with tempfile.TemporaryDirectory() as directory:
                make_checkpoint(arch, size, directory)
                f32, f64 = logit_differences(arch, directory)
                ids = np.random.default_rng(1).integers(0, SIZES[size]["vocab"], size=(BATCH, LENGTH))
                loaded = {}

                def load_seqlab():
                    loaded["seqlab"] = seqlab.hub.from_pretrained(directory)

                def load_hf():
                    loaded["hf"] = CLASSES[arch].from_pretrained(directory).eval()

                def forward_seqlab():
                    with seqlab.no_grad():
                        return loaded["seqlab"](seqlab.tensor(ids))

                def forward_hf():
                    with torch.no_grad():
                        return loaded["hf"](torch.from_numpy(ids)).logits

                load_s, load_h = timing.steady_seconds([load_seqlab, load_hf], args.repeats, 0.0, warmup=1)
                fwd_s, fwd_h = timing.steady_seconds([forward_seqlab, forward_hf], args.repeats, 0.0, warmup=1)
                print(f"{arch + ' ' + size:18s} {f32:10.1e} {f64:8.1e}   {load_s:14.3f} {load_h:7.3f} "
                      f"{load_h / load_s:6.2f}   {1e3 * fwd_s:18.1f} {1e3 * fwd_h:7.1f} {fwd_h / fwd_s:6.2f}")


if __name__ == "__main__":
    main()
