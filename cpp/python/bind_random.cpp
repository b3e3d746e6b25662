// seqlab.Generator and the random ops with torch's `generator=` keyword (None: the default
// generator behind seqlab.manual_seed). Python wrappers with torch's full signatures (device=,
// requires_grad=, random_'s overloads): python/seqlab/random.py and _tensor.py.
// Tests: tests/test_generator.py.
#include <cstring>

#include "bind_common.hpp"

namespace seqlab::bind {
namespace {

// A seed as torch takes it: any int in [-2^63, 2^64), negative ones modulo 2^64 (manual_seed(-1)
// is 2^64 - 1). seqlab.manual_seed truncates a float, as torch's int() does; Generator.manual_seed
// refuses it, as torch's does.
uint64_t seed_arg(const py::handle& o, bool truncate_float) {
  if (PyFloat_Check(o.ptr()) && !truncate_float)
    throw std::runtime_error("manual_seed expected a long, but got float");
  py::object i = PyFloat_Check(o.ptr()) ? py::object(py::int_(py::reinterpret_borrow<py::float_>(o)))
                                        : py::reinterpret_borrow<py::object>(o);
  if (!PyIndex_Check(i.ptr()))
    throw py::type_error("manual_seed(): argument 'seed' must be int, not " + type_name(o));
  i = py::reinterpret_steal<py::object>(PyNumber_Index(i.ptr()));
  if (!i) throw py::error_already_set();
  if (i < py::int_(0)) {
    if (i < -(py::int_(1) << py::int_(63))) throw py::value_error("Overflow when unpacking long long");
    return static_cast<uint64_t>(i.cast<int64_t>());
  }
  if (i >= (py::int_(1) << py::int_(64))) throw py::value_error("Overflow when unpacking long long");
  return i.cast<uint64_t>();
}

// get_state's words as an int64 tensor (the uint64 bits; torch returns a uint8 ByteTensor,
// a dtype seqlab does not have), and back.
Tensor state_tensor(const std::vector<uint64_t>& words) {
  Tensor t = Tensor::empty({static_cast<int64_t>(words.size())}, Dtype::Int64);
  std::memcpy(t.raw_data(), words.data(), words.size() * sizeof(uint64_t));
  return t;
}

std::vector<uint64_t> state_words(const Tensor& t) {
  if (t.dtype() != Dtype::Int64 || t.dim() != 1)
    throw py::type_error("RNG state must be a 1-d int64 tensor from get_state(), got a " + std::to_string(t.dim()) +
                         "-d " + scalar_type_name(t.dtype()) + " tensor");
  const Tensor c = contiguous(t);
  std::vector<uint64_t> words(c.numel());
  std::memcpy(words.data(), c.raw_data(), words.size() * sizeof(uint64_t));
  return words;
}

}  // namespace

void bind_random(py::module_& m) {
  py::class_<Generator> gen(m, "Generator", R"(Generator(device='cpu'): a random number generator with its own seed
and stream, as torch.Generator. Pass it as generator= to the random functions; two generators
never disturb each other, and one seed always gives the same numbers.)");
  gen.def(py::init([](const py::object& device) {
    py::module_::import("seqlab._device").attr("check_device")(device, "Generator");
    return new Generator();
  }), py::arg("device") = "cpu");
  gen.def("manual_seed", [](py::object self, const py::handle& seed) {
    self.cast<Generator&>().manual_seed(seed_arg(seed, false));
    return self;
  }, py::arg("seed"), "Seed the generator; returns it.");
  gen.def("seed", &Generator::seed, "Seed from a non-deterministic source; returns the seed.");
  gen.def("initial_seed", &Generator::initial_seed, "The seed last set.");
  gen.def("get_state", [](const Generator& g) { return state_tensor(g.get_state()); },
          "The whole state as an int64 tensor, for set_state.");
  gen.def("set_state", [](py::object self, const Tensor& state) {
    self.cast<Generator&>().set_state(state_words(state));
    return self;
  }, py::arg("new_state"), "Restore a state from get_state(); returns the generator.");
  gen.def_property_readonly("device", [](const Generator&) {
    return py::module_::import("seqlab._device").attr("device")("cpu");
  }, "Where the generator draws: always seqlab.device('cpu').");
  // pickle.dumps/loads and copy.deepcopy give a generator with the same state, so the same next
  // numbers, as torch.Generator's (whose pickle holds its seed and its state tensor too).
  gen.def(py::pickle(
      [](const Generator& g) { return py::make_tuple(g.initial_seed(), state_tensor(g.get_state())); },
      [](const py::tuple& t) {
        if (t.size() != 2) throw std::runtime_error("Generator.__setstate__: expected (seed, state), got a tuple of " +
                                                    std::to_string(t.size()));
        auto g = std::make_unique<Generator>(t[0].cast<uint64_t>());
        g->set_state(state_words(t[1].cast<Tensor>()));
        return g;
      }));
  m.attr("default_generator") = py::cast(&default_generator(), py::return_value_policy::reference);

  m.def("manual_seed", [](const py::handle& seed) {
    default_generator().manual_seed(seed_arg(seed, true));
    return py::cast(&default_generator(), py::return_value_policy::reference);
  }, py::arg("seed"), "Seed the default generator; returns it (torch.manual_seed).");
  m.def("initial_seed", &initial_seed,
        "The seed of the default generator (torch.initial_seed).");

  auto cls = py::reinterpret_borrow<py::class_<TensorImpl, std::shared_ptr<TensorImpl>>>(m.attr("Tensor"));
  def_op(m, "_rand", [](const Shape& s, Dtype d, Generator* g) { return rand(s, d, g); }, py::arg("size"), py::arg("dtype"),
        py::arg("generator"), Release());
  def_op(m, "_randn", [](const Shape& s, Dtype d, Generator* g) { return randn(s, d, g); }, py::arg("size"), py::arg("dtype"),
        py::arg("generator"), Release());
  def_op(m, "_randint", [](int64_t lo, int64_t hi, const Shape& s, Dtype d, Generator* g) {
    return randint(lo, hi, s, d, g);
  }, py::arg("low"), py::arg("high"), py::arg("size"), py::arg("dtype"), py::arg("generator"), Release());
  def_op(m, "_randperm", [](int64_t n, Dtype d, Generator* g) { return randperm(n, d, g); }, py::arg("n"), py::arg("dtype"),
        py::arg("generator"), Release());
  m.def("_random_", [](Tensor& x, int64_t from, std::optional<int64_t> to, Generator* g) -> Tensor {
    return random_(x, from, to, g);
  }, py::arg("self"), py::arg("from"), py::arg("to"), py::arg("generator"), Release());
  const auto multinomial_fn = [](const Tensor& p, int64_t n, bool repl, Generator* g) { return multinomial(p, n, repl, g); };
  def_op(cls, "multinomial", multinomial_fn, py::arg("num_samples"), py::arg("replacement") = false, py::kw_only(),
          py::arg("generator") = nullptr, Release(),
          "num_samples indices per row drawn with probabilities proportional to the row (torch.multinomial).");
  def_op(m, "multinomial", multinomial_fn, py::arg("input"), py::arg("num_samples"), py::arg("replacement") = false,
        py::kw_only(), py::arg("generator") = nullptr, Release(),
        "num_samples indices per row drawn with probabilities proportional to the row (torch.multinomial).");

  def_op(cls, "uniform_", [](Tensor& x, double a, double b, Generator* g) -> Tensor { return uniform_(x, a, b, g); },
          py::arg("from") = 0.0, py::arg("to") = 1.0, py::kw_only(), py::arg("generator") = nullptr, Release(),
          "Fill with x ~ U[from, to) in place.");
  def_op(cls, "normal_", [](Tensor& x, double mean, double std, Generator* g) -> Tensor { return normal_(x, mean, std, g); },
          py::arg("mean") = 0.0, py::arg("std") = 1.0, py::kw_only(), py::arg("generator") = nullptr, Release(),
          "Fill with x ~ N(mean, std^2) in place.");
  def_op(cls, "exponential_", [](Tensor& x, double lambd, Generator* g) -> Tensor { return exponential_(x, lambd, g); },
          py::arg("lambd") = 1.0, py::kw_only(), py::arg("generator") = nullptr, Release(),
          "Fill with x ~ Exp(lambd) in place: x = -log(1 - u) / lambd, u ~ U[0, 1).");
  // bernoulli_(p): p a number or a tensor of probabilities broadcast to self.
  def_op(cls, "bernoulli_", [](Tensor& x, const Tensor& p, Generator* g) -> Tensor { return bernoulli_(x, p, g); },
          py::arg("p"), py::kw_only(), py::arg("generator") = nullptr, Release(),
          "Fill with 1 with probability p_i (a tensor broadcast to self), else 0, in place.");
  def_op(cls, "bernoulli_", [](Tensor& x, double p, Generator* g) -> Tensor { return bernoulli_(x, p, g); },
          py::arg("p") = 0.5, py::kw_only(), py::arg("generator") = nullptr, Release(),
          "Fill with 1 with probability p, else 0, in place.");
  // bernoulli(input): draws with input's probabilities; bernoulli(input, p): with probability p.
  const auto bernoulli_fn = [](const Tensor& x, Generator* g) { return bernoulli(x, g); };
  const auto bernoulli_p = [](const Tensor& x, double p, Generator* g) {
    Tensor out = Tensor::empty(x.shape(), x.dtype());
    return bernoulli_(out, p, g);
  };
  def_op(m, "bernoulli", bernoulli_fn, py::arg("input"), py::kw_only(), py::arg("generator") = nullptr, Release(),
        "1 with probability input_i, else 0 (torch.bernoulli); same shape and dtype as input.");
  def_op(m, "bernoulli", bernoulli_p, py::arg("input"), py::arg("p"), py::kw_only(), py::arg("generator") = nullptr,
        Release(), "1 with probability p, else 0, in the shape and dtype of input.");
  def_op(cls, "bernoulli", bernoulli_fn, py::kw_only(), py::arg("generator") = nullptr, Release(),
          "1 with probability self_i, else 0 (torch.bernoulli).");
  def_op(cls, "bernoulli", bernoulli_p, py::arg("p"), py::kw_only(), py::arg("generator") = nullptr, Release(),
          "1 with probability p, else 0, in the shape and dtype of self.");
}

}  // namespace seqlab::bind
