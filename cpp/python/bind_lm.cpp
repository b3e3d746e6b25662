// seqlab._core.lm: the C++ n-gram model (seqlab/lm/ngram.hpp). python/seqlab/lm/ngram.py
// gives it KenLM's and NLTK-like methods; counting and scoring run without the GIL.
#include <algorithm>

#include <pybind11/stl.h>

#include "bind_numpy.hpp"
#include "seqlab/lm/ngram.hpp"

namespace seqlab::bind {
namespace {

using lm::NGramModel;
using lm::Smoothing;

Smoothing smoothing_arg(const std::string& s) {
  if (s == "kneser_ney") return Smoothing::KneserNey;
  if (s == "katz") return Smoothing::Katz;
  if (s == "witten_bell") return Smoothing::WittenBell;
  if (s == "add_k") return Smoothing::AddK;
  if (s == "mle") return Smoothing::MLE;
  throw py::value_error("NGram: smoothing must be one of 'kneser_ney', 'katz', 'witten_bell', 'add_k', 'mle'; got '" +
                        s + "'");
}

const char* smoothing_name(Smoothing s) {
  switch (s) {
    case Smoothing::KneserNey: return "kneser_ney";
    case Smoothing::Katz: return "katz";
    case Smoothing::WittenBell: return "witten_bell";
    case Smoothing::AddK: return "add_k";
    case Smoothing::MLE: return "mle";
    case Smoothing::Arpa: return "arpa";
  }
  return "?";
}

lm::BuildOptions build_options(int order, const std::string& smoothing, double k, int katz_k,
                               const std::array<double, 3>& fallback) {
  lm::BuildOptions opt;
  opt.order = order;
  opt.smoothing = smoothing_arg(smoothing);
  opt.k = k;
  opt.katz_k = katz_k;
  for (int i = 0; i < 3; ++i) opt.fallback[i] = fallback[i];
  return opt;
}

}  // namespace

void bind_lm(py::module_& m) {
  py::module_ l = m.def_submodule("lm", "n-gram language models");
  l.attr("MAX_ORDER") = lm::kMaxOrder;
  l.def("check_options", [](int order, const std::string& smoothing, double k, int katz_k,
                            std::array<double, 3> fallback) {
    build_options(order, smoothing, k, katz_k, fallback).check();
  },
        py::arg("order"), py::arg("smoothing"), py::arg("k"), py::arg("katz_k"), py::arg("fallback"));
  py::class_<NGramModel, std::shared_ptr<NGramModel>>(l, "NGramModel")
      .def_static(
          "build",
          [](const std::vector<std::string>& words, py::array_t<int32_t, py::array::c_style> ids,
             py::array_t<int64_t, py::array::c_style> offsets, int order, const std::string& smoothing, double k,
             int katz_k, std::array<double, 3> fallback) {
            const lm::BuildOptions opt = build_options(order, smoothing, k, katz_k, fallback);
            SEQLAB_CHECK_VALUE(offsets.size() >= 1, "NGram.fit: offsets must have n_sentences + 1 entries");
            const int32_t* pid = ids.data();
            const int64_t* poff = offsets.data();
            const int64_t n_sent = offsets.size() - 1;
            return released(
                [&] { return std::make_shared<NGramModel>(NGramModel::build(words, pid, poff, n_sent, opt)); });
          },
          py::arg("words"), py::arg("ids"), py::arg("offsets"), py::arg("order"), py::arg("smoothing"), py::arg("k"),
          py::arg("katz_k"), py::arg("fallback"))
      .def_static(
          "read_arpa",
          [](const std::string& path) { return std::make_shared<NGramModel>(NGramModel::read_arpa(path)); },
          py::arg("path"), Release())
      .def("write_arpa", &NGramModel::write_arpa, py::arg("path"), Release())
      .def_property_readonly("order", &NGramModel::order)
      .def_property_readonly("smoothing", [](const NGramModel& self) { return smoothing_name(self.smoothing()); })
      .def_property_readonly("k", &NGramModel::add_k)
      .def_property_readonly("has_counts", &NGramModel::has_counts)
      .def_property_readonly("vocab", &NGramModel::vocab)
      .def_property_readonly("warnings", &NGramModel::warnings)
      .def_property_readonly("discounts",
                             [](const NGramModel& self) {
                               py::list out;
                               if (self.smoothing() == Smoothing::Katz) {  // Good-Turing's, per order
                                 for (const auto& d : self.discounts())
                                   out.append(py::dict(py::arg("K") = d.katz_k,
                                                       py::arg("counts_of_counts") = d.katz_counts_of_counts,
                                                       py::arg("d") = d.katz_d,
                                                       py::arg("raised_contexts") = d.katz_raised_contexts));
                                 return out;
                               }
                               for (const auto& d : self.discounts())
                                 out.append(py::dict(py::arg("D1") = d.d[0], py::arg("D2") = d.d[1],
                                                     py::arg("D3+") = d.d[2], py::arg("fallback") = d.fallback,
                                                     py::arg("counts_of_counts") =
                                                         std::vector<uint64_t>(d.counts_of_counts, d.counts_of_counts + 4)));
                               return out;
                             })
      .def("id", &NGramModel::id, py::arg("token"))
      .def(
          "ngrams",
          [](const NGramModel& self, int n) {
            SEQLAB_CHECK_INDEX(n >= 1 && n <= self.order(), "NGram: order ", n, " is outside 1..", self.order());
            const lm::Order& o = self.order_table(n);
            size_t E = o.size();
            py::array_t<uint32_t> ids({static_cast<py::ssize_t>(E), static_cast<py::ssize_t>(n)});
            const std::vector<uint32_t> keys = self.keys(n);
            std::copy(keys.begin(), keys.end(), ids.mutable_data());
            py::object counts = py::none();
            if (!o.count.empty()) counts = py::array_t<uint32_t>(static_cast<py::ssize_t>(E), o.count.data());
            py::array_t<float> backoff(static_cast<py::ssize_t>(E));
            if (o.backoff.empty())  // a built model's top order: no back-off weights
              std::fill_n(backoff.mutable_data(), E, 0.0f);
            else
              std::copy_n(o.backoff.data(), E, backoff.mutable_data());
            return py::make_tuple(ids, py::array_t<float>(static_cast<py::ssize_t>(E), o.logprob.data()), backoff,
                                  counts);
          },
          py::arg("n"))
      .def(
          "encode",
          [](const NGramModel& self, const std::string& sentence, const std::string& level) {
            return move_to_numpy(self.encode(sentence, text_level_arg(level)));
          },
          py::arg("sentence"), py::arg("level"))
      .def(
          "score_ids",
          [](const NGramModel& self, py::array_t<uint32_t, py::array::c_style | py::array::forcecast> ids, bool bos,
             bool eos) {
            const size_t n = static_cast<size_t>(ids.size());
            for (size_t i = 0; i < n; ++i)
              SEQLAB_CHECK_INDEX(ids.data()[i] < self.vocab().size() && ids.data()[i] != lm::kBos, "NGram.score: id ",
                                 ids.data()[i], " at position ", i, " is not a token of the vocabulary (size ",
                                 self.vocab().size(), ") that can be predicted");
            std::vector<double> lp(n + (eos ? 1 : 0));
            std::vector<int> len(lp.size());
            released([&] { self.score(ids.data(), n, bos, eos, lp.data(), len.data()); });
            return py::make_tuple(move_to_numpy(std::move(lp)), move_to_numpy(std::move(len)));
          },
          py::arg("ids"), py::arg("bos"), py::arg("eos"))
      .def(
          "score",
          [](const NGramModel& self, std::string_view sentence, const std::string& level, bool bos, bool eos) {
            auto run = [&] {
              auto ids = self.encode(sentence, text_level_arg(level));
              thread_local std::vector<double> lp;
              lp.resize(ids.size() + 1);
              self.score(ids.data(), ids.size(), bos, eos, lp.data(), nullptr);
              double total = 0;
              for (size_t i = 0; i < ids.size() + (eos ? 1 : 0); ++i) total += lp[i];
              return total;
            };
            // A sentence takes microseconds: releasing the GIL and taking it back would cost a
            // tenth of that, so only long texts release it.
            return sentence.size() > 4096 ? released(run) : run();
          },
          py::arg("sentence"), py::arg("level"), py::arg("bos"), py::arg("eos"))
      .def(
          "score_corpus",
          [](const NGramModel& self, const std::vector<std::string_view>& lines, const std::string& level, bool bos,
             bool eos) {
            text::Level lv = text_level_arg(level);
            std::vector<double> total(lines.size());
            std::vector<int64_t> tokens(lines.size()), oov(lines.size());
            int64_t chars = 0;  // code points, as Python's len(): the bytes that do not continue one
            released([&] {
              std::vector<double> lp;
              for (size_t s = 0; s < lines.size(); ++s) {
                size_t n_oov = 0;
                auto ids = self.encode(lines[s], lv, &n_oov);
                lp.resize(ids.size() + 1);
                self.score(ids.data(), ids.size(), bos, eos, lp.data(), nullptr);
                size_t T = ids.size() + (eos ? 1 : 0);
                double sum = 0;
                for (size_t i = 0; i < T; ++i) sum += lp[i];
                total[s] = sum;
                tokens[s] = static_cast<int64_t>(T);
                oov[s] = static_cast<int64_t>(n_oov);
                for (unsigned char c : lines[s]) chars += (c & 0xC0) != 0x80;
              }
            });
            return py::make_tuple(move_to_numpy(std::move(total)), move_to_numpy(std::move(tokens)),
                                  move_to_numpy(std::move(oov)), chars);
          },
          py::arg("lines"), py::arg("level"), py::arg("bos"), py::arg("eos"))
      .def(
          "distribution",
          [](const NGramModel& self, py::array_t<uint32_t, py::array::c_style | py::array::forcecast> history) {
            for (py::ssize_t i = 0; i < history.size(); ++i)
              SEQLAB_CHECK_INDEX(history.data()[i] < self.vocab().size(), "NGram: history id ", history.data()[i],
                                 " is outside the vocabulary (size ", self.vocab().size(), ")");
            const size_t n = static_cast<size_t>(history.size());
            return move_to_numpy(released([&] { return self.distribution(history.data(), n); }));
          },
          py::arg("history"));
}

}  // namespace seqlab::bind
