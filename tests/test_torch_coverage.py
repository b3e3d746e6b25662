"""How much of PyTorch's public surface seqlab has, namespace by namespace, walked with dir() in the
installed torch 2.13: torch, torch.Tensor, torch.nn.functional (F), torch.nn, torch.nn.init,
torch.linalg, torch.special, torch.autograd, torch.func and torch.utils.data (submodules are
namespaces of their own, not names).

Each public name is in seqlab, or EXCLUDED with its reason (what a CPU sequence-model library leaves
out: complex numbers, sparse and quantized tensors, FFT, 3-D and image ops, accelerator and
distributed internals, TorchScript and compiler internals, typing helpers and doc strings), or in
MISSING, the ledger of what is still to be built. The test fails on a name in none of the three, on a
MISSING name seqlab now has (the ledger cannot go stale) and on an EXCLUDED name torch no longer has
or seqlab has after all. COVERAGE is (names seqlab has, names in scope) per namespace.

    python tests/test_torch_coverage.py            prints the figures and the exclusions by reason
    python tests/test_torch_coverage.py --ledger   rewrites MISSING and COVERAGE below from the tree
"""
import inspect
import re
import sys

import pytest
import torch
import torch.nn.functional
import torch.utils.data

import seqlab
import seqlab.nn.functional
import seqlab.nn.init
import seqlab.utils.data

# namespace -> (torch object, dotted path of seqlab's counterpart)
NAMESPACES = {
    "torch": (torch, "seqlab"),
    "Tensor": (torch.Tensor, "seqlab.Tensor"),
    "F": (torch.nn.functional, "seqlab.nn.functional"),
    "nn": (torch.nn, "seqlab.nn"),
    "init": (torch.nn.init, "seqlab.nn.init"),
    "linalg": (torch.linalg, "seqlab.linalg"),
    "special": (torch.special, "seqlab.special"),
    "autograd": (torch.autograd, "seqlab.autograd"),
    "func": (torch.func, "seqlab.func"),
    "data": (torch.utils.data, "seqlab.utils.data"),
}


def torch_names(ns):
    """The public names of a torch namespace, submodules left out."""
    obj = NAMESPACES[ns][0]
    return sorted(n for n in dir(obj)
                  if not n.startswith("_") and not inspect.ismodule(getattr(obj, n, None)))


def seqlab_namespace(ns):
    """seqlab's counterpart of a torch namespace, or None where seqlab has none yet."""
    obj = seqlab
    for part in NAMESPACES[ns][1].split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def seqlab_has(ns, name):
    obj = seqlab_namespace(ns)
    return obj is not None and hasattr(obj, name)


# Out of scope, with the reason for each group.
EXCLUDED = {
    'complex numbers': """
        Tensor.angle Tensor.cdouble Tensor.cfloat Tensor.chalf Tensor.conj Tensor.conj_physical
        Tensor.conj_physical_ Tensor.imag Tensor.is_complex Tensor.is_conj Tensor.is_neg
        Tensor.isreal Tensor.real Tensor.resolve_conj Tensor.resolve_neg torch.ComplexDoubleStorage
        torch.ComplexFloatStorage torch.ComplexType torch.angle torch.cdouble torch.cfloat
        torch.chalf torch.complex torch.complex128 torch.complex32 torch.complex64 torch.conj
        torch.conj_physical torch.conj_physical_ torch.imag torch.is_complex torch.is_conj
        torch.is_neg torch.isreal torch.polar torch.real torch.resolve_conj torch.resolve_neg
        torch.view_as_complex torch.view_as_complex_copy torch.view_as_real torch.view_as_real_copy
    """.split(),
    'sparse tensors': """
        F.sparse_support_notes Tensor.ccol_indices Tensor.coalesce Tensor.col_indices
        Tensor.crow_indices Tensor.dense_dim Tensor.indices Tensor.is_coalesced Tensor.is_sparse
        Tensor.is_sparse_csr Tensor.resize_as_sparse_ Tensor.row_indices Tensor.smm
        Tensor.sparse_dim Tensor.sparse_mask Tensor.sparse_resize_ Tensor.sparse_resize_and_clear_
        Tensor.sspaddmm Tensor.to_dense Tensor.to_sparse Tensor.to_sparse_bsc Tensor.to_sparse_bsr
        Tensor.to_sparse_coo Tensor.to_sparse_csc Tensor.to_sparse_csr Tensor.values
        torch.ccol_indices_copy torch.col_indices_copy torch.crow_indices_copy torch.dsmm torch.hsmm
        torch.hspmm torch.indices_copy torch.resize_as_sparse_ torch.row_indices_copy torch.saddmm
        torch.smm torch.sparse_bsc torch.sparse_bsc_tensor torch.sparse_bsr torch.sparse_bsr_tensor
        torch.sparse_compressed_tensor torch.sparse_coo torch.sparse_coo_tensor torch.sparse_csc
        torch.sparse_csc_tensor torch.sparse_csr torch.sparse_csr_tensor torch.spmm torch.sspaddmm
        torch.values_copy
    """.split(),
    'quantization and sub-byte/8-bit float storage formats': """
        Tensor.dequantize Tensor.int_repr Tensor.q_per_channel_axis Tensor.q_per_channel_scales
        Tensor.q_per_channel_zero_points Tensor.q_scale Tensor.q_zero_point Tensor.qscheme
        torch.QInt32Storage torch.QInt8Storage torch.QUInt2x4Storage torch.QUInt4x2Storage
        torch.QUInt8Storage torch.bit torch.bits16 torch.bits1x8 torch.bits2x4 torch.bits4x2
        torch.bits8 torch.choose_qparams_optimized torch.dequantize torch.empty_quantized
        torch.fake_quantize_per_channel_affine torch.fake_quantize_per_tensor_affine
        torch.fbgemm_linear_fp16_weight torch.fbgemm_linear_fp16_weight_fp32_activation
        torch.fbgemm_linear_int8_weight torch.fbgemm_linear_int8_weight_fp32_activation
        torch.fbgemm_linear_quantize_weight torch.fbgemm_pack_gemm_matrix_fp16
        torch.fbgemm_pack_quantized_matrix torch.float4_e2m1fn_x2 torch.float8_e4m3fn
        torch.float8_e4m3fnuz torch.float8_e5m2 torch.float8_e5m2fnuz torch.float8_e8m0fnu
        torch.fused_moving_avg_obs_fake_quant torch.int1 torch.int2 torch.int3 torch.int4 torch.int5
        torch.int6 torch.int7 torch.int_repr torch.per_channel_affine
        torch.per_channel_affine_float_qparams torch.per_channel_symmetric torch.per_tensor_affine
        torch.per_tensor_symmetric torch.q_per_channel_axis torch.q_per_channel_scales
        torch.q_per_channel_zero_points torch.q_scale torch.q_zero_point torch.qint32 torch.qint8
        torch.qscheme torch.quantize_per_channel torch.quantize_per_tensor
        torch.quantize_per_tensor_dynamic torch.quantized_batch_norm torch.quantized_gru
        torch.quantized_gru_cell torch.quantized_lstm torch.quantized_lstm_cell
        torch.quantized_max_pool1d torch.quantized_max_pool2d torch.quantized_max_pool3d
        torch.quantized_rnn_relu_cell torch.quantized_rnn_tanh_cell torch.quint2x4 torch.quint4x2
        torch.quint8 torch.uint1 torch.uint2 torch.uint3 torch.uint4 torch.uint5 torch.uint6
        torch.uint7
    """.split(),
    'FFT and spectral analysis': """
        Tensor.istft Tensor.stft torch.bartlett_window torch.blackman_window torch.hamming_window
        torch.hann_window torch.has_spectral torch.istft torch.kaiser_window torch.stft
    """.split(),
    '3-D and image ops (volumes, image resampling, pixel/channel shuffles)': """
        F.GRID_SAMPLE_INTERPOLATION_MODES F.GRID_SAMPLE_PADDING_MODES F.adaptive_avg_pool3d
        F.adaptive_max_pool3d F.adaptive_max_pool3d_with_indices F.affine_grid F.avg_pool3d
        F.channel_shuffle F.conv3d F.conv_transpose3d F.dropout3d F.fold F.fractional_max_pool2d
        F.fractional_max_pool2d_with_indices F.fractional_max_pool3d
        F.fractional_max_pool3d_with_indices F.grid_sample F.interpolate F.lp_pool3d F.max_pool3d
        F.max_pool3d_with_indices F.max_unpool1d F.max_unpool2d F.max_unpool3d
        F.native_channel_shuffle F.pixel_shuffle F.pixel_unshuffle F.unfold F.upsample
        F.upsample_bilinear F.upsample_nearest nn.AdaptiveAvgPool3d nn.AdaptiveMaxPool3d
        nn.AvgPool3d nn.BatchNorm3d nn.ChannelShuffle nn.CircularPad3d nn.ConstantPad3d nn.Conv3d
        nn.ConvTranspose3d nn.CrossMapLRN2d nn.Dropout3d nn.Fold nn.FractionalMaxPool2d
        nn.FractionalMaxPool3d nn.InstanceNorm3d nn.LPPool3d nn.LazyBatchNorm3d nn.LazyConv3d
        nn.LazyConvTranspose3d nn.LazyInstanceNorm3d nn.MaxPool3d nn.MaxUnpool1d nn.MaxUnpool2d
        nn.MaxUnpool3d nn.PixelShuffle nn.PixelUnshuffle nn.ReflectionPad3d nn.ReplicationPad3d
        nn.Unfold nn.Upsample nn.UpsamplingBilinear2d nn.UpsamplingNearest2d nn.ZeroPad3d
        torch.affine_grid_generator torch.channel_shuffle torch.channels_last torch.channels_last_3d
        torch.conv3d torch.conv_transpose3d torch.cudnn_affine_grid_generator torch.grid_sampler
        torch.grid_sampler_2d torch.grid_sampler_3d torch.max_pool3d torch.mkldnn_max_pool3d
        torch.native_channel_shuffle torch.pixel_shuffle torch.pixel_unshuffle
    """.split(),
    'accelerator, backend and distributed internals (CUDA, MPS, XPU, cuDNN, oneDNN, multi-process)': """
        F.ScalingType F.SwizzleType F.grouped_mm F.scaled_grouped_mm F.scaled_mm Tensor.ipu
        Tensor.is_distributed Tensor.is_ipu Tensor.is_maia Tensor.is_mkldnn Tensor.is_mps
        Tensor.is_mtia Tensor.is_pinned Tensor.is_shared Tensor.is_vulkan Tensor.is_xla
        Tensor.is_xpu Tensor.mtia Tensor.pin_memory Tensor.record_stream Tensor.share_memory_
        Tensor.to_mkldnn Tensor.xpu nn.DataParallel nn.SyncBatchNorm torch.AcceleratorError
        torch.Event torch.OutOfMemoryError torch.Stream torch.USE_GLOBAL_DEPS
        torch.USE_RTLD_GLOBAL_WITH_LIBTORCH torch.autocast_decrement_nesting
        torch.autocast_increment_nesting torch.batch_norm_backward_elemt
        torch.batch_norm_backward_reduce torch.batch_norm_elemt torch.batch_norm_gather_stats
        torch.batch_norm_gather_stats_with_counts torch.batch_norm_stats
        torch.batch_norm_update_stats torch.compiled_with_cxx11_abi torch.cudnn_batch_norm
        torch.cudnn_convolution torch.cudnn_convolution_add_relu torch.cudnn_convolution_relu
        torch.cudnn_convolution_transpose torch.cudnn_grid_sampler torch.cudnn_is_acceptable
        torch.get_autocast_gpu_dtype torch.get_autocast_ipu_dtype torch.get_autocast_xla_dtype
        torch.get_device_module torch.has_lapack torch.has_mkl torch.has_openmp
        torch.init_num_threads torch.is_autocast_ipu_enabled torch.is_autocast_xla_enabled
        torch.is_distributed torch.is_vulkan_available torch.miopen_batch_norm
        torch.miopen_convolution torch.miopen_convolution_add_relu torch.miopen_convolution_relu
        torch.miopen_convolution_transpose torch.miopen_ctc_loss torch.miopen_depthwise_convolution
        torch.miopen_rnn torch.mkldnn_adaptive_avg_pool2d torch.mkldnn_convolution
        torch.mkldnn_linear_backward_weights torch.mkldnn_max_pool2d torch.mkldnn_rnn_layer
        torch.native_batch_norm torch.native_dropout torch.native_group_norm torch.native_layer_norm
        torch.native_norm torch.prepare_multiprocessing_environment
        torch.profiler_allow_cudagraph_cupti_lazy_reinit_cuda12 torch.set_autocast_gpu_dtype
        torch.set_autocast_ipu_dtype torch.set_autocast_ipu_enabled torch.set_autocast_xla_dtype
        torch.set_autocast_xla_enabled
    """.split(),
    'TorchScript, compiler and dispatcher internals (IR types, symbolic shapes, control-flow ops)': """
        F.assert_int_or_pair F.boolean_dispatch F.handle_torch_function F.has_torch_function
        F.has_torch_function_unary F.has_torch_function_variadic Tensor.const_data_ptr
        Tensor.dim_order Tensor.grad_dtype Tensor.hash_tensor Tensor.module_load
        Tensor.slice_inverse autograd.handle_torch_function autograd.has_torch_function
        autograd.is_tensor_like func.debug_unwrap func.functionalize linalg.cond torch.AVG
        torch.AggregationType torch.AliasDb torch.AnyType torch.Argument torch.ArgumentSpec
        torch.AwaitType torch.BenchmarkConfig torch.BenchmarkExecutionStats torch.Block
        torch.BoolType torch.BufferDict torch.CallStack torch.Capsule torch.ClassType torch.Code
        torch.CompilationUnit torch.CompleteArgumentSpec torch.ConcreteModuleType
        torch.ConcreteModuleTypeBuilder torch.DeepCopyMemoTable torch.DeserializationStorageContext
        torch.DeviceObjType torch.DictType torch.DisableTorchFunction
        torch.DisableTorchFunctionSubclass torch.DispatchKey torch.DispatchKeySet torch.EnumType
        torch.ErrorReport torch.ExcludeDispatchKeyGuard torch.ExecutionPlan torch.FatalError
        torch.FileCheck torch.FloatType torch.FunctionSchema torch.Future torch.FutureType
        torch.Gradient torch.Graph torch.GraphExecutorState torch.IODescriptor torch.InferredType
        torch.IntType torch.InterfaceType torch.JITException torch.ListType torch.LiteScriptModule
        torch.LockingLogger torch.LoggerBase torch.ModuleDict torch.NoneType torch.NoopLogger
        torch.NumberType torch.OperatorInfo torch.OptionalType torch.PRIVATE_OPS torch.ParameterDict
        torch.PyObjectType torch.PyTorchFileReader torch.PyTorchFileWriter torch.RRefType torch.SUM
        torch.ScriptClass torch.ScriptClassFunction torch.ScriptDict torch.ScriptDictIterator
        torch.ScriptDictKeyIterator torch.ScriptFunction torch.ScriptList torch.ScriptListIterator
        torch.ScriptMethod torch.ScriptModule torch.ScriptModuleSerializer torch.ScriptObject
        torch.ScriptObjectProperty torch.SerializationStorageContext torch.StaticModule
        torch.StreamObjType torch.StringType torch.SymBool torch.SymBoolType torch.SymFloat
        torch.SymInt torch.SymIntType torch.Tag torch.TensorType torch.ThroughputBenchmark
        torch.TracingState torch.TupleType torch.Type torch.UnionType torch.Use torch.Value
        torch.classproperty torch.cond torch.fork torch.hash_tensor torch.import_ir_module
        torch.import_ir_module_from_buffer torch.merge_type_from_type_comment torch.parse_ir
        torch.parse_schema torch.parse_type_comment torch.slice_inverse torch.sym_constrain_range
        torch.sym_constrain_range_for_size torch.sym_float torch.sym_fresh_size torch.sym_int
        torch.sym_ite torch.sym_max torch.sym_min torch.sym_not torch.sym_sqrt torch.sym_sum
        torch.thread_safe_generator torch.unify_type_list torch.wait torch.while_loop
    """.split(),
    'typing names and helpers that modules import, not torch API': """
        F.BroadcastingList1 F.BroadcastingList2 F.BroadcastingList3 F.Callable F.DType F.Optional
        F.TYPE_CHECKING F.Tensor autograd.Mapping autograd.Sequence autograd.cast autograd.overload
        init.Callable init.Literal init.ParamSpec init.Tensor init.TypeVar nn.factory_kwargs
        special.Tensor torch.TYPE_CHECKING
    """.split(),
    'documentation strings': """
        F.reproducibility_notes F.tf32_notes linalg.common_notes special.common_args
        special.multi_dim_common
    """.split(),
    "the autograd profiler's and engine's internals": """
        autograd.DeviceType autograd.NestedIOFunction autograd.ProfilerActivity
        autograd.ProfilerConfig autograd.ProfilerEvent autograd.ProfilerState
        autograd.enforce_grad_layout_policy autograd.is_multithreading_enabled
        autograd.is_view_replay_enabled autograd.kineto_available
        autograd.set_multithreading_enabled
    """.split(),
    'removed from torch (calling it raises in torch 2.13 too)': """
        Tensor.eig Tensor.lstsq Tensor.reinforce Tensor.solve Tensor.symeig Tensor.volatile
        torch.eig torch.lstsq torch.matrix_rank torch.solve torch.symeig
    """.split(),
    "DataPipes (torchdata's deprecated pipeline API)": """
        data.DFIterDataPipe data.DataChunk data.IterDataPipe data.MapDataPipe
        data.argument_validation data.functional_datapipe data.guaranteed_datapipes_determinism
        data.non_deterministic data.runtime_validation data.runtime_validation_disabled
    """.split(),
    'typed storage objects (torch.*Storage, Tensor.storage): memory internals a model never touches': """
        Tensor.is_set_to Tensor.set_ Tensor.storage Tensor.storage_type Tensor.untyped_storage
        torch.BFloat16Storage torch.BoolStorage torch.ByteStorage torch.CharStorage
        torch.DoubleStorage torch.FloatStorage torch.HalfStorage torch.IntStorage torch.LongStorage
        torch.ShortStorage torch.Storage torch.StorageBase torch.TypedStorage torch.UntypedStorage
        torch.from_file torch.is_storage
    """.split(),
    'named and nested tensors (prototypes)': """
        Tensor.is_nested Tensor.name Tensor.to_padded_tensor torch.jagged
    """.split(),
}

# The ledger: in scope, not built yet.
MISSING = {
    'torch': """
        embedding_bag histogramdd lobpcg uint16 uint32 uint64
    """.split(),
    'Tensor': """
        as_subclass index
    """.split(),
    'linalg': """
        eig eigvals
    """.split(),
    'autograd': """
        SavedTensor gradgradcheck
    """.split(),
}

COVERAGE = {
    'torch': (603, 609),
    'Tensor': (514, 516),
    'F': (100, 100),
    'nn': (133, 133),
    'init': (26, 26),
    'linalg': (39, 41),
    'special': (56, 56),
    'autograd': (12, 14),
    'func': (13, 13),
    'data': (19, 19),
}


def excluded_names():
    return {name: reason for reason, names in EXCLUDED.items() for name in names}


def in_scope(ns):
    excluded = excluded_names()
    return [n for n in torch_names(ns) if f"{ns}.{n}" not in excluded]


def measure():
    """{namespace: (names seqlab has, names in scope)} and the in-scope names seqlab lacks."""
    coverage, lacking = {}, {}
    for ns in NAMESPACES:
        names = in_scope(ns)
        lacking[ns] = [n for n in names if not seqlab_has(ns, n)]
        coverage[ns] = (len(names) - len(lacking[ns]), len(names))
    return coverage, lacking


@pytest.mark.parametrize("ns", list(NAMESPACES))
def test_every_name_is_in_seqlab_excluded_or_in_the_ledger(ns):
    unaccounted = [n for n in in_scope(ns) if not seqlab_has(ns, n) and n not in MISSING.get(ns, ())]
    assert unaccounted == [], (f"torch's {ns} names neither in seqlab, EXCLUDED (with a reason) nor MISSING: "
                               f"{unaccounted}")


@pytest.mark.parametrize("ns", list(NAMESPACES))
def test_the_ledger_is_current(ns):
    names = set(torch_names(ns))
    now_present = [n for n in MISSING.get(ns, ()) if seqlab_has(ns, n)]
    gone = [n for n in MISSING.get(ns, ()) if n not in names]
    assert now_present == [], f"seqlab now has these {ns} names: take them off MISSING ({now_present})"
    assert gone == [], f"torch has no such {ns} names: take them off MISSING ({gone})"


def test_exclusions_are_torch_names_seqlab_does_not_have():
    stale, present = [], []
    for name in excluded_names():
        ns, attr = name.split(".", 1)
        if attr not in torch_names(ns):
            stale.append(name)
        elif seqlab_has(ns, attr):
            present.append(name)
    assert stale == [], f"EXCLUDED names torch does not have: {stale}"
    assert present == [], f"EXCLUDED names seqlab has, so they are in scope after all: {present}"


def test_the_ledger_holds_no_excluded_name():
    excluded = excluded_names()
    both = [f"{ns}.{n}" for ns, names in MISSING.items() for n in names if f"{ns}.{n}" in excluded]
    assert both == []


def test_coverage_is_reported():
    coverage, _ = measure()
    assert coverage == COVERAGE, f"coverage changed: {coverage}; run `python {__file__} --ledger`"


def _report():
    coverage, _ = measure()
    print(f"{'namespace':<20}{'seqlab has':>12}{'in scope':>10}{'coverage':>10}{'excluded':>10}")
    for ns, (have, scope) in coverage.items():
        total = len(torch_names(ns))
        print(f"{NAMESPACES[ns][1].replace('seqlab', 'torch'):<20}{have:>12}{scope:>10}"
              f"{100 * have / max(scope, 1):>9.1f}%{total - scope:>10}")
    have = sum(h for h, _ in coverage.values())
    scope = sum(s for _, s in coverage.values())
    print(f"{'all':<20}{have:>12}{scope:>10}{100 * have / scope:>9.1f}%{len(excluded_names()):>10}")
    print("\nexcluded, by reason:")
    for reason, names in EXCLUDED.items():
        print(f"{len(names):>5}  {reason}")


def _rewrite_ledger():
    coverage, lacking = measure()
    path = __file__
    text = open(path).read()
    lines = ["MISSING = {"]
    for ns, names in lacking.items():
        if names:
            lines.append(f"    {ns!r}: \"\"\"")
            lines.extend(_wrap(names))
            lines.append("    \"\"\".split(),")
    lines.append("}")
    lines += ["", "COVERAGE = {"] + [f"    {ns!r}: {pair!r}," for ns, pair in coverage.items()] + ["}"]
    ledger = "\n".join(lines) + "\n"
    text = re.sub(r"MISSING = \{.*?\n\}\n\nCOVERAGE = \{.*?\}\n", lambda m: ledger, text, flags=re.S)
    open(path, "w").write(text)


def _wrap(names, width=100):
    lines, line = [], "       "
    for n in names:
        if len(line) + 1 + len(n) > width:
            lines.append(line)
            line = "       "
        line += " " + n
    lines.append(line)
    return lines


if __name__ == "__main__":
    if "--ledger" in sys.argv:
        _rewrite_ledger()
    _report()
