// seqlab._core.glove: co-occurrence counting, GloVe training and the sparse product of the
// randomised SVD (seqlab/embed/cooccur.hpp, glove.hpp). Used by python/seqlab/embed/glove.py
// and ppmi.py. Every compute call releases the GIL.
#include <pybind11/numpy.h>

#include "bind_common.hpp"
#include "seqlab/embed/glove.hpp"

namespace seqlab::bind {
namespace {

using embed::Cooccurrence;
using embed::GloveParameters;
using embed::GloveTrainer;

template <class T>
using carray = py::array_t<T, py::array::c_style | py::array::forcecast>;

template <class T>
py::array_t<T> to_numpy(const std::vector<T>& v, std::vector<py::ssize_t> shape) {
  py::array_t<T> a(shape);
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

template <class T>
std::vector<T> to_vector(const carray<T>& a) {
  return std::vector<T>(a.data(), a.data() + a.size());
}

Cooccurrence make_cooccurrence(const carray<int32_t>& row, const carray<int32_t>& col, const carray<double>& value,
                               int64_t n_words) {
  if (row.size() != value.size() || col.size() != value.size())
    throw py::value_error("row, col and value must have the same length");
  Cooccurrence X;
  X.n_words = n_words;
  X.row = to_vector(row);
  X.col = to_vector(col);
  X.value = to_vector(value);
  return X;
}

py::dict parameters_dict(const GloveParameters& p, py::ssize_t V, py::ssize_t d, bool with_accumulators) {
  py::dict out;
  out["W"] = to_numpy(p.W, {V, d});
  out["C"] = to_numpy(p.C, {V, d});
  out["bw"] = to_numpy(p.bw, {V});
  out["bc"] = to_numpy(p.bc, {V});
  if (with_accumulators) {
    out["gW"] = to_numpy(p.gW, {V, d});
    out["gC"] = to_numpy(p.gC, {V, d});
    out["gbw"] = to_numpy(p.gbw, {V});
    out["gbc"] = to_numpy(p.gbc, {V});
  }
  return out;
}

}  // namespace

void bind_glove(py::module_& m) {
  py::module_ g = m.def_submodule("glove", "co-occurrence counting, GloVe, sparse products (seqlab.embed)");

  g.def(
      "cooccurrence",
      [](const carray<int32_t>& ids, const carray<int64_t>& offsets, int64_t n_words, int64_t window, bool symmetric,
         bool distance_weighting, int workers) {
        if (offsets.size() < 1) throw py::value_error("cooccurrence: offsets needs at least one entry");
        const int64_t n_sentences = offsets.size() - 1;
        const int64_t* off = offsets.data();
        for (int64_t s = 0; s < n_sentences; ++s)
          if (off[s] > off[s + 1]) throw py::value_error("cooccurrence: offsets must be non-decreasing");
        if (off[0] < 0 || off[n_sentences] > ids.size())
          throw py::value_error("cooccurrence: offsets point outside ids");
        embed::CooccurOptions o;
        o.window = window;
        o.symmetric = symmetric;
        o.distance_weighting = distance_weighting;
        o.workers = workers;
        const Cooccurrence X =
            released([&] { return embed::count_cooccurrences(ids.data(), off, n_sentences, n_words, o); });
        const auto n = static_cast<py::ssize_t>(X.nnz());
        return py::make_tuple(to_numpy(X.row, {n}), to_numpy(X.col, {n}), to_numpy(X.value, {n}));
      },
      py::arg("ids"), py::arg("offsets"), py::arg("n_words"), py::arg("window"), py::arg("symmetric") = true,
      py::arg("distance_weighting") = true, py::arg("workers") = 2,
      "Sparse co-occurrence counts (row int32, col int32, value float64), sorted by (row, col).");

  g.def(
      "csr_matmul",
      [](const carray<int64_t>& indptr, const carray<int32_t>& indices, const carray<double>& data,
         const carray<double>& X, int workers) {
        if (X.ndim() != 2) throw py::value_error("csr_matmul: X must be 2-D");
        const int64_t n_rows = indptr.size() - 1, k = X.shape(1), n_cols = X.shape(0);
        if (n_rows < 0 || indices.size() != data.size() || indptr.data()[n_rows] != data.size())
          throw py::value_error("csr_matmul: inconsistent CSR arrays");
        for (py::ssize_t e = 0; e < indices.size(); ++e)
          if (indices.data()[e] < 0 || indices.data()[e] >= n_cols)
            throw py::value_error("csr_matmul: a column index is outside X's rows");
        py::array_t<double> Y({static_cast<py::ssize_t>(n_rows), static_cast<py::ssize_t>(k)});
        double* y = Y.mutable_data();
        released([&] {
          embed::csr_matmul(indptr.data(), indices.data(), data.data(), n_rows, X.data(), k, y, workers);
        });
        return Y;
      },
      py::arg("indptr"), py::arg("indices"), py::arg("data"), py::arg("X"), py::arg("workers") = 2,
      "Y = A @ X for a CSR matrix A and a dense float64 X.");

  py::class_<GloveTrainer>(g, "Trainer")
      .def(py::init([](const carray<int32_t>& row, const carray<int32_t>& col, const carray<double>& value,
                       int64_t n_words, int64_t vector_size, double x_max, double alpha, double learning_rate,
                       int workers, uint64_t seed) {
             embed::GloveOptions o;
             o.vector_size = vector_size;
             o.x_max = x_max;
             o.alpha = alpha;
             o.learning_rate = learning_rate;
             o.workers = workers;
             o.seed = seed;
             return GloveTrainer(make_cooccurrence(row, col, value, n_words), o);
           }),
           py::arg("row"), py::arg("col"), py::arg("value"), py::arg("n_words"), py::arg("vector_size"),
           py::arg("x_max"), py::arg("alpha"), py::arg("learning_rate"), py::arg("workers"), py::arg("seed"))
      .def("train_epoch", &GloveTrainer::train_epoch, Release(),
           "One AdaGrad pass over the nonzeros; returns glove.c's mean cost.")
      .def("cost", &GloveTrainer::cost, Release())
      .def("gradient",
           [](const GloveTrainer& t) {
             const GloveParameters grad = released([&] { return t.gradient(); });
             return parameters_dict(grad, t.cooccurrence().n_words, t.options().vector_size, false);
           })
      .def("parameters",
           [](const GloveTrainer& t) {
             return parameters_dict(t.parameters(), t.cooccurrence().n_words, t.options().vector_size, true);
           })
      .def("set_parameters",
           [](GloveTrainer& t, const py::dict& d) {
             GloveParameters p;
             auto get = [&](const char* name) { return to_vector<double>(d[name].cast<carray<double>>()); };
             p.W = get("W");
             p.C = get("C");
             p.bw = get("bw");
             p.bc = get("bc");
             p.gW = get("gW");
             p.gC = get("gC");
             p.gbw = get("gbw");
             p.gbc = get("gbc");
             t.set_parameters(std::move(p));
           }, py::arg("parameters"))
      .def("order", [](const GloveTrainer& t) {
        auto o = t.order();
        return to_numpy(o, {static_cast<py::ssize_t>(o.size())});
      });
}

}  // namespace seqlab::bind
