// seqlab._core.word2vec: Word2Vec / FastText training and its pieces (seqlab/embed/word2vec.hpp),
// used by python/seqlab/embed/word2vec.py and fasttext.py. Matrices are NumPy float32 arrays
// updated in place; training releases the GIL.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bind_common.hpp"
#include "seqlab/embed/word2vec.hpp"

namespace seqlab::bind {
namespace {

using embed::Progress;
using embed::Word2VecData;
using embed::Word2VecOptions;

template <class T>
using carray = py::array_t<T, py::array::c_style | py::array::forcecast>;

// A float32 C-contiguous writable matrix (rows, cols), updated in place (never a copy).
float* matrix_arg(const py::object& o, const char* name, int64_t rows, int64_t cols) {
  if (!py::isinstance<py::array_t<float>>(o))
    throw py::type_error(std::string("word2vec.train: ") + name + " must be a float32 NumPy array");
  auto a = py::reinterpret_borrow<py::array>(o);
  if (!(a.flags() & py::array::c_style) || !a.writeable() || a.ndim() != 2 || a.shape(0) < rows || a.shape(1) != cols)
    throw py::value_error(std::string("word2vec.train: ") + name + " must be a writable C-contiguous float32 array of shape (" +
                          std::to_string(rows) + ", " + std::to_string(cols) + ")");
  return static_cast<float*>(a.mutable_data());
}

// The options of train and check_options, checked (Word2VecOptions::check).
Word2VecOptions options(int64_t vector_size, int window, bool sg, bool hs, int negative, double ns_exponent,
                        bool cbow_mean, double alpha, double min_alpha, int epochs, bool shrink_windows, uint64_t seed,
                        int workers, int64_t chunk_words, int block_chunks, bool compute_loss, int epoch_begin,
                        int epoch_end) {
  Word2VecOptions opt;
  opt.vector_size = vector_size, opt.window = window, opt.sg = sg, opt.hs = hs, opt.negative = negative;
  opt.ns_exponent = ns_exponent, opt.cbow_mean = cbow_mean, opt.alpha = alpha, opt.min_alpha = min_alpha;
  opt.epochs = epochs, opt.shrink_windows = shrink_windows, opt.seed = seed, opt.workers = workers;
  opt.chunk_words = chunk_words, opt.block_chunks = block_chunks;
  opt.compute_loss = compute_loss, opt.epoch_begin = epoch_begin, opt.epoch_end = epoch_end;
  opt.check();
  return opt;
}

template <class T>
py::array_t<T> to_numpy(const std::vector<T>& v) {
  py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

}  // namespace

void bind_word2vec(py::module_& m) {
  py::module_ w = m.def_submodule("word2vec", "Word2Vec and FastText training (seqlab.embed)");

  py::class_<Progress>(w, "Progress", "Training progress, readable from another thread while train() runs")
      .def(py::init<>())
      .def_property_readonly("words_done", [](const Progress& p) { return p.words_done.load(); })
      .def_property_readonly("effective_words", [](const Progress& p) { return p.effective_words.load(); })
      .def_property_readonly("last_alpha", [](const Progress& p) { return p.last_alpha; })
      .def_property_readonly("loss", [](const Progress& p) { return p.loss; },
                             "with compute_loss: the summed -log sigma(+-s) of the pairs trained so far")
      .def("stop", [](Progress& p) { p.stop = true; }, "finish the current block and return");

  w.def(
      "train",
      [](carray<int32_t> ids, carray<int64_t> offsets, carray<int64_t> counts, std::optional<carray<uint32_t>> sample_int,
         py::object syn0, py::object syn1neg, py::object syn1, std::optional<carray<int64_t>> sub_offsets,
         std::optional<carray<int32_t>> sub_rows, Progress& progress, int64_t vector_size, int window, bool sg, bool hs,
         int negative, double ns_exponent, bool cbow_mean, double alpha, double min_alpha, int epochs,
         bool shrink_windows, uint64_t seed, int workers, int64_t chunk_words, int block_chunks, bool compute_loss,
         int epoch_begin, int epoch_end) {
        const Word2VecOptions opt = options(vector_size, window, sg, hs, negative, ns_exponent, cbow_mean, alpha,
                                            min_alpha, epochs, shrink_windows, seed, workers, chunk_words, block_chunks,
                                            compute_loss, epoch_begin, epoch_end);
        Word2VecData data;
        data.V = counts.size();
        data.counts = counts.data();
        data.ids = ids.data();
        data.n_tokens = ids.size();
        SEQLAB_CHECK_VALUE(offsets.size() >= 1, "word2vec.train: offsets must have n_sentences + 1 entries");
        data.offsets = offsets.data();
        data.n_sentences = offsets.size() - 1;
        for (int64_t s = 0; s < data.n_sentences; ++s)
          SEQLAB_CHECK_VALUE(data.offsets[s] <= data.offsets[s + 1], "word2vec.train: offsets must be non-decreasing");
        SEQLAB_CHECK_VALUE(data.offsets[0] >= 0 && data.offsets[data.n_sentences] <= data.n_tokens,
                           "word2vec.train: offsets out of range of ids");
        for (int64_t t = 0; t < data.n_tokens; ++t)
          SEQLAB_CHECK_INDEX(data.ids[t] >= 0 && data.ids[t] < data.V, "word2vec.train: id ", data.ids[t], " at ", t,
                             " out of range for a vocabulary of ", data.V);
        if (sample_int) {
          SEQLAB_CHECK_VALUE(sample_int->size() == data.V, "word2vec.train: sample_int must have one entry per word");
          data.sample_int = sample_int->data();
        }
        auto rows = [](const py::object& o) { return py::reinterpret_borrow<py::array>(o).shape(0); };
        data.n_input_rows = rows(syn0);
        data.syn0 = matrix_arg(syn0, "syn0", data.V, vector_size);
        if (negative > 0) data.syn1neg = matrix_arg(syn1neg, "syn1neg", data.V, vector_size);
        if (hs) data.syn1 = matrix_arg(syn1, "syn1", data.V, vector_size);
        if (sub_offsets) {
          SEQLAB_CHECK_VALUE(sub_rows && sub_offsets->size() == data.V + 1,
                             "word2vec.train: sub_offsets must have V + 1 entries and come with sub_rows");
          data.sub_offsets = sub_offsets->data();
          data.sub_rows = sub_rows->data();
          for (int64_t wd = 0; wd < data.V; ++wd)
            SEQLAB_CHECK_VALUE(data.sub_offsets[wd] < data.sub_offsets[wd + 1], "word2vec.train: word ", wd,
                               " has no input rows");
          SEQLAB_CHECK_VALUE(data.sub_offsets[data.V] <= static_cast<int64_t>(sub_rows->size()),
                             "word2vec.train: sub_offsets out of range of sub_rows");
          for (py::ssize_t i = 0; i < sub_rows->size(); ++i)
            SEQLAB_CHECK_INDEX(data.sub_rows[i] >= 0 && data.sub_rows[i] < data.n_input_rows,
                               "word2vec.train: sub_rows entry out of range");
        }
        released([&] { embed::train_word2vec(data, opt, progress); });
      },
      py::arg("ids"), py::arg("offsets"), py::arg("counts"), py::arg("sample_int"), py::arg("syn0"), py::arg("syn1neg"),
      py::arg("syn1"), py::arg("sub_offsets"), py::arg("sub_rows"), py::arg("progress"), py::kw_only(),
      py::arg("vector_size"), py::arg("window"), py::arg("sg"), py::arg("hs"), py::arg("negative"),
      py::arg("ns_exponent"), py::arg("cbow_mean"), py::arg("alpha"), py::arg("min_alpha"), py::arg("epochs"),
      py::arg("shrink_windows"), py::arg("seed"), py::arg("workers"), py::arg("chunk_words"), py::arg("block_chunks"),
      py::arg("compute_loss") = false, py::arg("epoch_begin") = 0, py::arg("epoch_end") = -1);

  // The options' bounds (word2vec.hpp), for the Python checks of values beyond the C++ types.
  w.attr("MAX_VECTOR_SIZE") = embed::kMaxVectorSize;
  w.attr("MAX_NEGATIVE") = embed::kMaxNegative;
  w.attr("MAX_SENTENCE_WORDS") = embed::kMaxSentenceWords;

  // Word2Vec's and FastText's constructors check every training option here, before any corpus is read.
  w.def("check_options", [](int64_t vector_size, int window, bool sg, bool hs, int negative, double ns_exponent,
                            bool cbow_mean, double alpha, double min_alpha, int epochs, bool shrink_windows,
                            uint64_t seed, int workers, int64_t chunk_words, int block_chunks, bool compute_loss) {
    options(vector_size, window, sg, hs, negative, ns_exponent, cbow_mean, alpha, min_alpha, epochs, shrink_windows,
            seed, workers, chunk_words, block_chunks, compute_loss, 0, -1);
  }, py::kw_only(), py::arg("vector_size"), py::arg("window"), py::arg("sg"), py::arg("hs"), py::arg("negative"),
     py::arg("ns_exponent"), py::arg("cbow_mean"), py::arg("alpha"), py::arg("min_alpha"), py::arg("epochs"),
     py::arg("shrink_windows"), py::arg("seed"), py::arg("workers"), py::arg("chunk_words"), py::arg("block_chunks"),
     py::arg("compute_loss") = false);

  w.def("decayed_alpha", &embed::decayed_alpha, py::arg("alpha"), py::arg("min_alpha"), py::arg("words_done"),
        py::arg("total_words"), "gensim's linear learning-rate decay");

  // One update, for tests: H (m, d) inputs, O (n, d) outputs, L (n,) labels -> (H + dH, O updated).
  w.def(
      "sgd_block",
      [](carray<float> H, carray<float> O, carray<float> L, float alpha) {
        SEQLAB_CHECK_VALUE(H.ndim() == 2 && O.ndim() == 2 && L.ndim() == 1 && H.shape(1) == O.shape(1) &&
                               L.shape(0) == O.shape(0),
                           "sgd_block: expected H (m, d), O (n, d), L (n,)");
        const int m = static_cast<int>(H.shape(0)), n = static_cast<int>(O.shape(0));
        const int64_t d = H.shape(1);
        py::array_t<float> Hn({H.shape(0), H.shape(1)}), On({O.shape(0), O.shape(1)});
        std::copy(H.data(), H.data() + m * d, Hn.mutable_data());
        std::copy(O.data(), O.data() + n * d, On.mutable_data());
        std::vector<const float*> hp(m);
        std::vector<float*> op(n);
        for (int j = 0; j < m; ++j) hp[j] = Hn.data() + j * d;
        for (int k = 0; k < n; ++k) op[k] = On.mutable_data() + k * d;
        std::vector<float> G(static_cast<size_t>(m) * n), dH(static_cast<size_t>(m) * d);
        embed::sgd_block(m, n, d, hp.data(), op.data(), L.data(), alpha, G.data(), dH.data());
        float* hn = Hn.mutable_data();
        for (int64_t i = 0; i < m * d; ++i) hn[i] += dH[i];
        return py::make_tuple(Hn, On);
      },
      py::arg("H"), py::arg("O"), py::arg("L"), py::arg("alpha"));

  // Skip-gram with negative sampling, one (word, context) pair: ascends
  // log σ(w·c) + Σ_i log σ(-w·c_i) by alpha times its gradient. Returns (w, c, negatives) updated.
  w.def(
      "sgns_step",
      [](carray<float> wv, carray<float> c, carray<float> negatives, float alpha) {
        SEQLAB_CHECK_VALUE(wv.ndim() == 1 && c.ndim() == 1 && negatives.ndim() == 2 && c.shape(0) == wv.shape(0) &&
                               negatives.shape(1) == wv.shape(0),
                           "sgns_step: expected w (d,), c (d,), negatives (k, d)");
        const int64_t d = wv.shape(0), k = negatives.shape(0);
        py::array_t<float> wn(d), On({k + 1, d});
        std::copy(wv.data(), wv.data() + d, wn.mutable_data());
        std::copy(c.data(), c.data() + d, On.mutable_data());
        std::copy(negatives.data(), negatives.data() + k * d, On.mutable_data() + d);
        std::vector<float> L(k + 1, 0.0f), G(k + 1), dH(d);
        L[0] = 1.0f;
        const float* hp = wn.data();
        std::vector<float*> op(k + 1);
        for (int64_t i = 0; i <= k; ++i) op[i] = On.mutable_data() + i * d;
        embed::sgd_block(1, static_cast<int>(k + 1), d, &hp, op.data(), L.data(), alpha, G.data(), dH.data());
        for (int64_t i = 0; i < d; ++i) wn.mutable_data()[i] += dH[i];
        py::array_t<float> cn(d), negn({k, d});
        std::copy(On.data(), On.data() + d, cn.mutable_data());
        std::copy(On.data() + d, On.data() + (k + 1) * d, negn.mutable_data());
        return py::make_tuple(wn, cn, negn);
      },
      py::arg("w"), py::arg("c"), py::arg("negatives"), py::arg("alpha"));

  w.def(
      "huffman",
      [](const std::vector<int64_t>& counts) {
        const embed::HuffmanTree t = released([&] { return embed::build_huffman(counts); });
        return py::make_tuple(to_numpy(t.code_offsets), to_numpy(t.codes), to_numpy(t.points));
      },
      py::arg("counts"), "(code_offsets, codes, points) of the Huffman tree over counts");

  w.def(
      "char_ngrams",
      [](const std::string& word, int min_n, int max_n) {
        py::list out;
        for (const auto& g : embed::char_ngrams(word, min_n, max_n)) out.append(py::bytes(g));
        return out;
      },
      py::arg("word"), py::arg("min_n"), py::arg("max_n"), "the n-grams of <word> as UTF-8 bytes (gensim's compute_ngrams_bytes)");
  w.def("ft_hash", [](const py::bytes& b) { return embed::ft_hash(std::string_view(b)); }, py::arg("bytes"),
        "Facebook fastText's FNV-1a hash (gensim's ft_hash_bytes)");
  w.def(
      "ngram_buckets",
      [](const std::string& word, int min_n, int max_n, uint32_t bucket) {
        return to_numpy(embed::ngram_buckets(word, min_n, max_n, bucket));
      },
      py::arg("word"), py::arg("min_n"), py::arg("max_n"), py::arg("bucket"), "gensim's ft_ngram_hashes");
  // Input rows of every word for training: word w, then V + bucket of each n-gram.
  w.def(
      "subword_rows",
      [](const std::vector<std::string>& words, int min_n, int max_n, uint32_t bucket) {
        std::vector<int64_t> offsets{0};
        std::vector<int32_t> rows;
        released([&] {
          const int64_t V = static_cast<int64_t>(words.size());
          SEQLAB_CHECK_VALUE(V + static_cast<int64_t>(bucket) < INT32_MAX, "FastText: vocabulary + bucket must be < 2^31");
          for (int64_t wd = 0; wd < V; ++wd) {
            rows.push_back(static_cast<int32_t>(wd));
            if (bucket > 0 && max_n >= min_n)
              for (uint32_t b : embed::ngram_buckets(words[wd], min_n, max_n, bucket))
                rows.push_back(static_cast<int32_t>(V + b));
            offsets.push_back(static_cast<int64_t>(rows.size()));
          }
        });
        return py::make_tuple(to_numpy(offsets), to_numpy(rows));
      },
      py::arg("words"), py::arg("min_n"), py::arg("max_n"), py::arg("bucket"));
}

}  // namespace seqlab::bind
