// The recurrent functionals (ops/rnn.hpp) for seqlab.nn.functional and seqlab.nn's modules,
// with torch's _VF names for the cells, and the C++ twins (nn/rnn.hpp) in seqlab._core.cpp_nn.
#include "bind_common.hpp"

namespace seqlab::bind {

namespace {

// torch's mode strings (RNNBase.mode), as the registered cells name themselves.
RnnMode parse_mode(const std::string& mode) { return rnn_mode_from_name(mode); }

RnnOptions options(const std::string& mode, bool has_biases, int64_t num_layers, double dropout, bool train,
                   bool bidirectional, bool batch_first, int64_t proj_size) {
  RnnOptions o;
  o.mode = parse_mode(mode);
  o.has_biases = has_biases;
  o.num_layers = num_layers;
  o.dropout = dropout;
  o.train = train;
  o.bidirectional = bidirectional;
  o.batch_first = batch_first;
  o.proj_size = proj_size;
  return o;
}

// (a py::object, not a py::tuple: through_float32 rounds the tensors of an object for 16-bit inputs)
py::object result(const RnnResult& r) { return py::make_tuple(r.output, r.h_n, r.c_n); }

template <typename Cell>
Tensor rnn_cell_forward(Cell& mod, const Tensor& x, std::optional<Tensor> hx) {
  return mod.forward(x, opt(hx));
}
std::pair<Tensor, Tensor> lstm_cell_forward(nn::LSTMCell& mod, const Tensor& x,
                                            std::optional<std::pair<Tensor, Tensor>> hx) {
  return hx ? mod.forward(x, hx->first, hx->second) : mod.forward(x);
}

template <typename M, typename Base = nn::Module>
using Class = py::class_<M, Base, std::shared_ptr<M>>;

}  // namespace

void bind_rnn(py::module_& m) {
  m.def("check_rnn_args", [](const std::string& mode, int64_t input_size, int64_t hidden_size, int64_t num_layers,
                             double dropout, int64_t proj_size) {
    check_rnn_args(parse_mode(mode), input_size, hidden_size, num_layers, dropout, proj_size);
  }, py::arg("mode"), py::arg("input_size"), py::arg("hidden_size"), py::arg("num_layers"), py::arg("dropout"),
        py::arg("proj_size"));
  m.def("rnn_nonlinearity_mode", [](const std::string& nonlinearity) {
    return rnn_cell_info(rnn_nonlinearity_mode(nonlinearity)).mode_name;
  }, py::arg("nonlinearity"));
  m.def("rnn_gate_count", [](const std::string& mode) { return rnn_gate_count(parse_mode(mode)); }, py::arg("mode"),
        "Rows of W_ih per hidden unit for torch's mode string (LSTM 4, GRU 3, RNN_TANH and RNN_RELU 1), as its "
        "registered cell says.");
  def_op(m, "rnn_tanh_cell", [](const Tensor& x, std::optional<Tensor> hx, const Tensor& w_ih, const Tensor& w_hh,
                            std::optional<Tensor> b_ih, std::optional<Tensor> b_hh) {
    return rnn_tanh_cell(x, opt(hx), w_ih, w_hh, opt(b_ih), opt(b_hh));
  }, py::arg("input"), py::arg("hx"), py::arg("w_ih"), py::arg("w_hh"), py::arg("b_ih") = py::none(),
        py::arg("b_hh") = py::none(), Release());
  def_op(m, "rnn_relu_cell", [](const Tensor& x, std::optional<Tensor> hx, const Tensor& w_ih, const Tensor& w_hh,
                            std::optional<Tensor> b_ih, std::optional<Tensor> b_hh) {
    return rnn_relu_cell(x, opt(hx), w_ih, w_hh, opt(b_ih), opt(b_hh));
  }, py::arg("input"), py::arg("hx"), py::arg("w_ih"), py::arg("w_hh"), py::arg("b_ih") = py::none(),
        py::arg("b_hh") = py::none(), Release());
  def_op(m, "lstm_cell", [](const Tensor& x, std::optional<Tensor> hx, std::optional<Tensor> cx, const Tensor& w_ih,
                        const Tensor& w_hh, std::optional<Tensor> b_ih, std::optional<Tensor> b_hh) {
    return lstm_cell(x, opt(hx), opt(cx), w_ih, w_hh, opt(b_ih), opt(b_hh));
  }, py::arg("input"), py::arg("hx"), py::arg("cx"), py::arg("w_ih"), py::arg("w_hh"), py::arg("b_ih") = py::none(),
        py::arg("b_hh") = py::none(), Release());
  def_op(m, "gru_cell", [](const Tensor& x, std::optional<Tensor> hx, const Tensor& w_ih, const Tensor& w_hh,
                       std::optional<Tensor> b_ih, std::optional<Tensor> b_hh) {
    return gru_cell(x, opt(hx), w_ih, w_hh, opt(b_ih), opt(b_hh));
  }, py::arg("input"), py::arg("hx"), py::arg("w_ih"), py::arg("w_hh"), py::arg("b_ih") = py::none(),
        py::arg("b_hh") = py::none(), Release());

  // (output, h_n, c_n or None)
  def_op(m, "rnn", [](const std::string& mode, const Tensor& input, std::optional<Tensor> hx, std::optional<Tensor> cx,
                  const std::vector<Tensor>& weights, bool has_biases, int64_t num_layers, double dropout, bool train,
                  bool bidirectional, bool batch_first, int64_t proj_size, std::optional<Tensor> grad_norms) {
    const RnnOptions o = options(mode, has_biases, num_layers, dropout, train, bidirectional, batch_first, proj_size);
    RnnResult r = released([&] { return rnn_forward(input, opt(hx), opt(cx), weights, o, opt(grad_norms)); });
    return result(r);
  }, py::arg("mode"), py::arg("input"), py::arg("hx"), py::arg("cx"), py::arg("weights"), py::arg("has_biases"),
        py::arg("num_layers"), py::arg("dropout"), py::arg("train"), py::arg("bidirectional"), py::arg("batch_first"),
        py::arg("proj_size") = 0, py::arg("grad_norms") = py::none());
  def_op(m, "rnn_packed", [](const std::string& mode, const Tensor& data, const Tensor& batch_sizes,
                         std::optional<Tensor> sorted_indices, std::optional<Tensor> unsorted_indices,
                         std::optional<Tensor> hx, std::optional<Tensor> cx, const std::vector<Tensor>& weights,
                         bool has_biases, int64_t num_layers, double dropout, bool train, bool bidirectional,
                         int64_t proj_size, std::optional<Tensor> grad_norms) {
    const RnnOptions o = options(mode, has_biases, num_layers, dropout, train, bidirectional, false, proj_size);
    RnnResult r = released([&] {
      return rnn_forward_packed(data, batch_sizes, opt(sorted_indices), opt(unsorted_indices), opt(hx), opt(cx),
                                weights, o, opt(grad_norms));
    });
    return result(r);
  }, py::arg("mode"), py::arg("data"), py::arg("batch_sizes"), py::arg("sorted_indices"), py::arg("unsorted_indices"),
        py::arg("hx"), py::arg("cx"), py::arg("weights"), py::arg("has_biases"), py::arg("num_layers"),
        py::arg("dropout"), py::arg("train"), py::arg("bidirectional"), py::arg("proj_size") = 0,
        py::arg("grad_norms") = py::none());

  // The C++ twins. forward returns torch's shapes of result: (output, h_n) or (output, (h_n, c_n)).
  py::module_ c = m.attr("cpp_nn").cast<py::module_>();
  auto layer_result = [](const nn::RNNBase& mod, const RnnResult& r) -> py::tuple {
    if (mod.mode == RnnMode::Lstm) return py::make_tuple(r.output, py::make_tuple(r.h_n, r.c_n));
    return py::make_tuple(r.output, r.h_n);
  };
  auto layer_forward = [layer_result](nn::RNNBase& mod, const Tensor& x, py::object hx) {
    Tensor h, cc;
    if (!hx.is_none()) {
      if (mod.mode == RnnMode::Lstm) {
        auto t = hx.cast<std::pair<Tensor, Tensor>>();
        h = t.first, cc = t.second;
      } else {
        h = hx.cast<Tensor>();
      }
    }
    RnnResult r = released([&] { return mod.forward(x, h, cc); });
    return layer_result(mod, r);
  };
  Class<nn::RNNBase>(c, "RNNBase")
      .def("forward", layer_forward, py::arg("input"), py::arg("hx") = py::none())
      .def("__call__", layer_forward, py::arg("input"), py::arg("hx") = py::none())
      .def("forward_packed", [layer_result](nn::RNNBase& mod, const Tensor& data, const Tensor& batch_sizes,
                                            std::optional<Tensor> sorted, std::optional<Tensor> unsorted) {
        RnnResult r = released([&] { return mod.forward_packed(data, batch_sizes, opt(sorted), opt(unsorted)); });
        return layer_result(mod, r);
      }, py::arg("data"), py::arg("batch_sizes"), py::arg("sorted_indices") = py::none(),
           py::arg("unsorted_indices") = py::none())
      .def("flatten_parameters", &nn::RNNBase::flatten_parameters);
  // One options struct for the three layers (and one for the three cells), each module taking the
  // fields its Python twin takes, in its order.
  using RO = nn::RNNOptions;
  ModuleOptions<RO> rnn_options(c, "RNNOptions", [] { return RO(0, 0); });
  rnn_options.arg("input_size", &RO::input_size, &RO::input_size)
      .arg("hidden_size", &RO::hidden_size, &RO::hidden_size)
      .arg("num_layers", &RO::num_layers, &RO::num_layers)
      .arg("nonlinearity", &RO::nonlinearity, &RO::nonlinearity)
      .arg("bias", &RO::bias, &RO::bias)
      .arg("batch_first", &RO::batch_first, &RO::batch_first)
      .arg("dropout", &RO::dropout, &RO::dropout)
      .arg("bidirectional", &RO::bidirectional, &RO::bidirectional)
      .arg("proj_size", &RO::proj_size, &RO::proj_size)
      .arg("dtype", &RO::dtype, &RO::dtype)
      .required({"input_size", "hidden_size"});
  c.attr("LSTMOptions") = rnn_options.cls();
  c.attr("GRUOptions") = rnn_options.cls();
  Class<nn::RNN, nn::RNNBase> rnn(c, "RNN");
  rnn_options.module_init<nn::RNN>(rnn, "RNN", nullptr, {"proj_size"});
  Class<nn::LSTM, nn::RNNBase> lstm(c, "LSTM");
  rnn_options.module_init<nn::LSTM>(lstm, "LSTM", nullptr, {"nonlinearity"});
  Class<nn::GRU, nn::RNNBase> gru(c, "GRU");
  rnn_options.module_init<nn::GRU>(gru, "GRU", nullptr, {"nonlinearity", "proj_size"});

  using CO = nn::RNNCellOptions;
  ModuleOptions<CO> cell_options(c, "RNNCellOptions", [] { return CO(0, 0); });
  cell_options.arg("input_size", &CO::input_size, &CO::input_size)
      .arg("hidden_size", &CO::hidden_size, &CO::hidden_size)
      .arg("bias", &CO::bias, &CO::bias)
      .arg("nonlinearity", &CO::nonlinearity, &CO::nonlinearity)
      .arg("dtype", &CO::dtype, &CO::dtype)
      .required({"input_size", "hidden_size"});
  c.attr("LSTMCellOptions") = cell_options.cls();
  c.attr("GRUCellOptions") = cell_options.cls();
  Class<nn::RNNCellBase>(c, "RNNCellBase");
  Class<nn::RNNCell, nn::RNNCellBase> rnn_cell(c, "RNNCell");
  cell_options.module_init<nn::RNNCell>(rnn_cell, "RNNCell");
  rnn_cell.def("forward", &rnn_cell_forward<nn::RNNCell>, py::arg("input"), py::arg("hx") = py::none(), Release())
      .def("__call__", &rnn_cell_forward<nn::RNNCell>, py::arg("input"), py::arg("hx") = py::none(), Release());
  Class<nn::LSTMCell, nn::RNNCellBase> lstm_cell(c, "LSTMCell");
  cell_options.module_init<nn::LSTMCell>(lstm_cell, "LSTMCell", nullptr, {"nonlinearity"});
  lstm_cell.def("forward", &lstm_cell_forward, py::arg("input"), py::arg("hx") = py::none(), Release())
      .def("__call__", &lstm_cell_forward, py::arg("input"), py::arg("hx") = py::none(), Release());
  Class<nn::GRUCell, nn::RNNCellBase> gru_cell(c, "GRUCell");
  cell_options.module_init<nn::GRUCell>(gru_cell, "GRUCell", nullptr, {"nonlinearity"});
  gru_cell.def("forward", &rnn_cell_forward<nn::GRUCell>, py::arg("input"), py::arg("hx") = py::none(), Release())
      .def("__call__", &rnn_cell_forward<nn::GRUCell>, py::arg("input"), py::arg("hx") = py::none(), Release());
}

}  // namespace seqlab::bind
