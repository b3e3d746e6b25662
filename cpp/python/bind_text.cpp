// seqlab._core.text: the C++ corpus encoder (seqlab/text/corpus.hpp) for seqlab.lm and
// seqlab.embed. Python strings are read in place (UTF-8 views), arrays are returned without copies.
#include <pybind11/stl.h>

#include "bind_numpy.hpp"
#include "seqlab/memory.hpp"
#include "seqlab/text/corpus.hpp"

namespace seqlab::bind {
namespace {

py::tuple to_python(text::Encoded&& e) {
  py::list vocab(e.vocab.size());
  for (size_t i = 0; i < e.vocab.size(); ++i) vocab[i] = py::str(e.vocab[i]);
  return py::make_tuple(vocab, move_to_numpy(std::move(e.counts)), move_to_numpy(std::move(e.ids)), move_to_numpy(std::move(e.offsets)),
                        e.n_unknown);
}

}  // namespace

text::Level text_level_arg(const std::string& level) {
  if (level == "word") return text::Level::Word;
  if (level == "char") return text::Level::Char;
  throw py::value_error("level must be 'word' or 'char', got '" + level + "'");
}

void bind_text(py::module_& m) {
  py::module_ t = m.def_submodule("text", "corpus encoding: tokens -> ids and counts");
  // Each returns (vocab, counts int64, ids int32, offsets int64, n_unknown).
  t.def(
      "encode_lines",
      [](const std::vector<std::string_view>& lines, const std::string& level, std::optional<std::vector<std::string>> vocab) {
        const text::Level lv = text_level_arg(level);
        return to_python(released([&] { return vocab ? text::encode(lines, lv, *vocab) : text::encode(lines, lv); }));
      },
      py::arg("lines"), py::arg("level") = "word", py::arg("vocab") = py::none());
  t.def(
      "encode_tokens",
      [](const std::vector<std::vector<std::string_view>>& sentences, std::optional<std::vector<std::string>> vocab) {
        return to_python(released([&] {
          return vocab ? text::encode_tokens(sentences, *vocab) : text::encode_tokens(sentences);
        }));
      },
      py::arg("sentences"), py::arg("vocab") = py::none());
  t.def(
      "encode_file",
      [](const std::string& path, const std::string& level, std::optional<std::vector<std::string>> vocab) {
        const text::Level lv = text_level_arg(level);
        text::Encoded e = released([&] {
          const std::string buf = text::read_file(path);
          const auto lines = text::split_lines(buf);
          return vocab ? text::encode(lines, lv, *vocab) : text::encode(lines, lv);
        });
        release_free_memory();  // the file's text and the encoder's tables
        return to_python(std::move(e));
      },
      py::arg("path"), py::arg("level") = "word", py::arg("vocab") = py::none());
}

}  // namespace seqlab::bind
