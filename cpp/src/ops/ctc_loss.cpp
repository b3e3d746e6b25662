// CTC loss (torch.nn.functional.ctc_loss; Graves et al. 2006, "Connectionist Temporal Classification",
// §4.1 the forward-backward algorithm, §4.2 the maximum-likelihood gradient), in log space: one op
// whose backward reuses the forward's α. Tests: tests/test_ctc_loss.py.
//
// Shapes: T time steps, N batch, C classes (blank among them); target l of length L, extended with
// blanks to l' = (blank, l_1, blank, l_2, ..., l_L, blank) of length S' = 2L + 1.
#include "seqlab/ops/ctc_loss.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernel_utils.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/check.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {
namespace {

constexpr const char* kWhile = " (while checking arguments for ctc_loss_allocate_outputs)";

// log(e^a + e^b), -inf when both are.
template <typename T>
T log_add(T a, T b) {
  const T m = std::max(a, b);
  if (m == -std::numeric_limits<T>::infinity()) return m;
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}

// The batch as the kernels read it: log-probabilities (T, N, C) contiguous, each target's labels
// as int64 starting at offsets[b].
struct CtcBatch {
  Tensor lp;                        // (T, N, C) contiguous, no history
  Tensor labels;                    // int64, contiguous
  std::vector<int64_t> offsets;     // where target b starts in labels
  std::vector<int64_t> input_lengths, target_lengths;
  int64_t T = 0, N = 0, C = 0, blank = 0, max_ext = 1;  // max_ext = 2 max(L) + 1
};

CtcBatch ctc_batch(const Tensor& log_probs, const Tensor& targets, const std::vector<int64_t>& input_lengths,
                   const std::vector<int64_t>& target_lengths, int64_t blank) {
  SEQLAB_CHECK_IMPL(is_floating(log_probs.dtype()), "\"ctc_loss_cpu\" not implemented for '",
                    scalar_type_name(log_probs.dtype()), "'");
  // An unbatched (T, C) input is a batch of one, as in torch (which unsqueezes every other rank too,
  // hence its dimension count in the message).
  const bool batched = log_probs.dim() == 3;
  SEQLAB_CHECK(batched || log_probs.dim() == 2, "Expected 3-dimensional tensor, but got ", log_probs.dim() + 1,
               "-dimensional tensor for argument #1 'log_probs'", kWhile);
  Tensor lp = batched ? log_probs.detach() : unsqueeze(log_probs.detach(), 1);
  Tensor tg = batched ? targets.detach() : unsqueeze(targets.detach(), 0);
  SEQLAB_CHECK(log_probs.numel() > 0, "log_probs tensor must not be empty");
  SEQLAB_CHECK(tg.dim() == 1 || tg.dim() == 2, "Expected 1 to 2 dimensions, but got ", tg.dim(),
               "-dimensional tensor for argument #2 'targets'", kWhile);
  CtcBatch b;
  b.T = lp.shape()[0];
  b.N = lp.shape()[1];
  b.C = lp.shape()[2];
  b.blank = blank;
  SEQLAB_CHECK(blank >= 0 && blank < b.C, "blank must be in label range");
  SEQLAB_CHECK(static_cast<int64_t>(input_lengths.size()) == b.N, "input_lengths must be of size batch_size");
  SEQLAB_CHECK(static_cast<int64_t>(target_lengths.size()) == b.N, "target_lengths must be of size batch_size");
  int64_t max_target = 0, total = 0;
  for (int64_t i = 0; i < b.N; ++i) {
    SEQLAB_CHECK(input_lengths[i] >= 0, "Expected input_lengths to have value at least 0, but got value ",
                 input_lengths[i], kWhile);
    SEQLAB_CHECK(input_lengths[i] <= b.T, "Expected input_lengths to have value at most ", b.T, ", but got value ",
                 input_lengths[i], kWhile);
    SEQLAB_CHECK(target_lengths[i] >= 0, "Expected target_lengths to have value at least 0, but got value ",
                 target_lengths[i], kWhile);
    max_target = std::max(max_target, target_lengths[i]);
    total += target_lengths[i];
  }
  b.offsets.resize(static_cast<size_t>(b.N));
  if (tg.dim() == 1) {  // concatenated
    SEQLAB_CHECK(tg.shape()[0] == total, "Expected tensor to have size ", total, " at dimension 0, but got size ",
                 tg.shape()[0], " for argument #2 'targets'", kWhile);
    for (int64_t i = 0, pos = 0; i < b.N; pos += target_lengths[i], ++i) b.offsets[i] = pos;
  } else {  // padded (N, S)
    SEQLAB_CHECK(tg.shape()[1] >= max_target, "Expected tensor to have size at least ", max_target,
                 " at dimension 1, but got size ", tg.shape()[1], " for argument #2 'targets'", kWhile);
    SEQLAB_CHECK(tg.shape()[0] == b.N, "Expected tensor to have size ", b.N, " at dimension 0, but got size ",
                 tg.shape()[0], " for argument #2 'targets'", kWhile);
    for (int64_t i = 0; i < b.N; ++i) b.offsets[i] = i * tg.shape()[1];
  }
  b.labels = contiguous(to_dtype(tg, Dtype::Int64));
  // torch reads whatever memory a label outside [0, C) points at; seqlab refuses it.
  const int64_t* lab = b.labels.data<int64_t>();
  for (int64_t i = 0; i < b.N; ++i)
    for (int64_t s = 0; s < target_lengths[i]; ++s) {
      const int64_t c = lab[b.offsets[i] + s];
      SEQLAB_CHECK_INDEX(c >= 0 && c < b.C, "ctc_loss: target ", c, " (element ", s, " of target ", i,
                         ") is out of bounds for ", b.C, " classes");
    }
  b.lp = contiguous(lp);
  b.input_lengths = input_lengths;
  b.target_lengths = target_lengths;
  b.max_ext = 2 * max_target + 1;
  return b;
}

// l'_s: blank at even s, l_{(s-1)/2} at odd s.
inline int64_t ext_label(const int64_t* l, int64_t s, int64_t blank) { return s % 2 == 0 ? blank : l[s / 2]; }

}  // namespace

// Forward (Graves et al. 2006, eqs. 6-8), per batch element b, over t < T_b:
//   α_0(0) = y_0(blank),  α_0(1) = y_0(l'_1)
//   α_t(s) = y_t(l'_s) · [α_{t-1}(s) + α_{t-1}(s-1) + α_{t-1}(s-2)·(l'_s ≠ blank and l'_s ≠ l'_{s-2})]
//   p(l | x) = α_{T-1}(S'-1) + α_{T-1}(S'-2),   loss_b = -log p(l | x)
// all in log space (products are sums, sums log_add); T_b = 0 gives p = 1 for an empty target, else 0.
// reduction: 'mean' is mean_b(loss_b / max(L_b, 1)), 'sum' Σ_b loss_b.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const std::vector<int64_t>& input_lengths,
                const std::vector<int64_t>& target_lengths, int64_t blank, Reduction reduction, bool zero_infinity) {
  const CtcBatch b = ctc_batch(log_probs, targets, input_lengths, target_lengths, blank);
  const Dtype dt = log_probs.dtype();
  const int64_t T = b.T, N = b.N, C = b.C, E = b.max_ext;
  // log α, (N, T, E); entries past T_b or S'_b stay -inf
  Tensor log_alpha = Tensor::empty({N, T, E}, dt);
  Tensor nll = Tensor::empty({N}, dt);
  dispatch_float(dt, "ctc_loss", [&](auto tag) {
    using F = decltype(tag);
    const F ninf = -std::numeric_limits<F>::infinity();
    const F* lp = b.lp.data<F>();
    parallel_for(N, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t n = b0; n < b1; ++n) {
        const int64_t Tn = b.input_lengths[n], L = b.target_lengths[n], S = 2 * L + 1;
        const int64_t* l = b.labels.data<int64_t>() + b.offsets[n];
        F* la = log_alpha.data<F>() + n * T * E;
        std::fill_n(la, T * E, ninf);
        auto y = [&](int64_t t, int64_t c) { return lp[(t * N + n) * C + c]; };  // log y_t(c)
        if (Tn == 0) {
          nll.data<F>()[n] = L == 0 ? F(-0.0) : -ninf;
          continue;
        }
        la[0] = y(0, b.blank);
        if (L > 0) la[1] = y(0, l[0]);
        for (int64_t t = 1; t < Tn; ++t) {
          const F* prev = la + (t - 1) * E;
          F* cur = la + t * E;
          for (int64_t s = 0; s < S; ++s) {
            const int64_t c = ext_label(l, s, b.blank);
            F a = prev[s];
            if (s > 0) a = log_add(a, prev[s - 1]);
            if (s > 1 && c != b.blank && c != ext_label(l, s - 2, b.blank)) a = log_add(a, prev[s - 2]);
            cur[s] = a == ninf ? ninf : a + y(t, c);
          }
        }
        const F* last = la + (Tn - 1) * E;
        const F log_p = L > 0 ? log_add(last[S - 1], last[S - 2]) : last[0];
        nll.data<F>()[n] = -log_p;
      }
    });
  });
  // The per-sample losses, zero_infinity applied, then torch's reduction (the scale of each sample
  // in the gradient below is the same rule).
  std::vector<double> weight(static_cast<size_t>(N), 1.0);
  if (reduction == Reduction::Mean)
    for (int64_t n = 0; n < N; ++n)
      weight[n] = 1.0 / (static_cast<double>(std::max<int64_t>(b.target_lengths[n], 1)) * static_cast<double>(N));
  Tensor per = Tensor::empty({N}, dt);
  Tensor loss;
  dispatch_float(dt, "ctc_loss", [&](auto tag) {
    using F = decltype(tag);
    const F* v = nll.data<F>();
    F* out = per.data<F>();
    double total = 0;
    for (int64_t n = 0; n < N; ++n) {
      out[n] = zero_infinity && std::isinf(v[n]) && v[n] > 0 ? F(0) : v[n];
      total += weight[n] * static_cast<double>(out[n]);
    }
    if (reduction == Reduction::None) {
      loss = log_probs.dim() == 3 ? per : reshape(per, {});
    } else {
      loss = Tensor::empty({}, dt);
      loss.data<F>()[0] = static_cast<F>(total);
    }
  });
  if (any_requires_grad({log_probs})) {
    // Backward (Graves et al. 2006, eqs. 10-11 and 16):
    //   β_{T-1}(S'-1) = y_{T-1}(blank),  β_{T-1}(S'-2) = y_{T-1}(l_L)
    //   β_t(s) = y_t(l'_s) · [β_{t+1}(s) + β_{t+1}(s+1) + β_{t+1}(s+2)·(l'_s ≠ blank and l'_s ≠ l'_{s+2})]
    //   γ_t(c) = Σ_{s: l'_s = c} α_t(s) β_t(s) / (y_t(c) p)   (the occupation of class c at t; Σ_c γ_t(c) = 1)
    // and, as torch, dlog_probs[t, c] = (y_t(c) - γ_t(c)) · dloss_b for t < T_b, 0 after. This is the
    // gradient through a log_softmax that produced log_probs (the y_t(c) term is what log_softmax's
    // backward adds, and Σ_c (y - γ) = 0 makes that backward leave it unchanged); for log_probs that are
    // not normalised it is not -γ, the derivative of the loss itself. Infinite losses give NaN, or 0
    // with zero_infinity.
    attach(loss, "CtcLossBackward0", {log_probs},
           [b, log_alpha, nll, weight, reduction, zero_infinity,
            in_shape = log_probs.shape()](const Tensor& g_) -> TensorList {
             const Tensor g = contiguous(g_);
             const int64_t T = b.T, N = b.N, C = b.C, E = b.max_ext;
             Tensor dlp = Tensor::empty({T, N, C}, b.lp.dtype());
             dispatch_float(b.lp.dtype(), "ctc_loss_backward", [&](auto tag) {
               using F = decltype(tag);
               const F ninf = -std::numeric_limits<F>::infinity();
               const F* lp = b.lp.data<F>();
               F* d = dlp.data<F>();
               parallel_for(N, 1, [&](int64_t b0, int64_t b1) {
                 std::vector<F> lb(static_cast<size_t>(T * E)), lcab(static_cast<size_t>(C));
                 for (int64_t n = b0; n < b1; ++n) {
                   const int64_t Tn = b.input_lengths[n], L = b.target_lengths[n], S = 2 * L + 1;
                   const int64_t* l = b.labels.data<int64_t>() + b.offsets[n];
                   const F* la = log_alpha.data<F>() + n * T * E;
                   const F loss_n = nll.data<F>()[n];
                   const F scale = static_cast<F>((reduction == Reduction::None ? g.data<F>()[n] : g.data<F>()[0]) *
                                                  weight[n]);
                   auto y = [&](int64_t t, int64_t c) { return lp[(t * N + n) * C + c]; };
                   for (int64_t t = Tn; t < T; ++t) std::fill_n(d + (t * N + n) * C, C, F(0));
                   if (Tn == 0) continue;
                   if (zero_infinity && std::isinf(loss_n)) {
                     for (int64_t t = 0; t < Tn; ++t) std::fill_n(d + (t * N + n) * C, C, F(0));
                     continue;
                   }
                   std::fill(lb.begin(), lb.end(), ninf);
                   F* last = lb.data() + (Tn - 1) * E;
                   last[S - 1] = y(Tn - 1, b.blank);
                   if (L > 0) last[S - 2] = y(Tn - 1, l[L - 1]);
                   for (int64_t t = Tn - 2; t >= 0; --t) {
                     const F* next = lb.data() + (t + 1) * E;
                     F* cur = lb.data() + t * E;
                     for (int64_t s = 0; s < S; ++s) {
                       const int64_t c = ext_label(l, s, b.blank);
                       F a = next[s];
                       if (s + 1 < S) a = log_add(a, next[s + 1]);
                       if (s + 2 < S && c != b.blank && c != ext_label(l, s + 2, b.blank)) a = log_add(a, next[s + 2]);
                       cur[s] = a == ninf ? ninf : a + y(t, c);
                     }
                   }
                   // log Σ_{s: l'_s = c} α_t(s) β_t(s), then y - exp(that + loss - log y)
                   for (int64_t t = 0; t < Tn; ++t) {
                     std::fill(lcab.begin(), lcab.end(), ninf);
                     for (int64_t s = 0; s < S; ++s) {
                       const int64_t c = ext_label(l, s, b.blank);
                       lcab[c] = log_add(lcab[c], la[t * E + s] + lb[t * E + s]);
                     }
                     F* dt_row = d + (t * N + n) * C;
                     for (int64_t c = 0; c < C; ++c) {
                       const F lpc = y(t, c);
                       dt_row[c] = (std::exp(lpc) - std::exp(lcab[c] + loss_n - lpc)) * scale;
                     }
                   }
                 }
               });
             });
             return {reshape(dlp, in_shape)};
           });
  }
  return loss;
}

}  // namespace seqlab
