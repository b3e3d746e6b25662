"""ONNX's messages (onnx/onnx.proto, IR version 8-9), encoded by the protobuf wire format
(seqlab/_protobuf.py) without the onnx package. Field numbers are onnx.proto's:

    ModelProto      ir_version 1, producer_name 2, producer_version 3, graph 7, opset_import 8
    OperatorSetId   domain 1, version 2
    GraphProto      node 1, name 2, initializer 5, input 11, output 12
    NodeProto       input 1, output 2, name 3, op_type 4, attribute 5
    AttributeProto  name 1, f 2, i 3, s 4, t 5, floats 7, ints 8, strings 9, type 20
    TensorProto     dims 1, data_type 2, name 8, raw_data 9 (little-endian, row-major)
    ValueInfoProto  name 1, type 2 -> TypeProto.tensor_type 1 -> elem_type 1, shape 2
                    -> TensorShapeProto.dim 1 -> dim_value 1 | dim_param 2
Repeated numbers are written unpacked (proto2's default, which every parser reads).
Tests: tests/test_onnx.py reads every file back with onnx.load and onnx.checker."""
import numpy as np

from .._protobuf import bytes_field, float_field, varint_field

# TensorProto.DataType for the NumPy dtypes seqlab's tensors have.
DATA_TYPE = {np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int8): 3, np.dtype(np.int16): 5,
             np.dtype(np.int32): 6, np.dtype(np.int64): 7, np.dtype(np.bool_): 9, np.dtype(np.float64): 11}

# AttributeProto.AttributeType
_FLOAT, _INT, _STRING, _TENSOR, _FLOATS, _INTS, _STRINGS = 1, 2, 3, 4, 6, 7, 8


def tensor(name, array):
    """A TensorProto holding `array` (a NumPy array) as raw little-endian bytes."""
    array = np.asarray(array)
    out = b"".join(varint_field(1, d) for d in array.shape)
    out += varint_field(2, DATA_TYPE[array.dtype])
    out += bytes_field(8, name)
    return out + bytes_field(9, np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<"), copy=False).tobytes())


def attribute(name, value):
    """An AttributeProto; the type follows the Python value: int, float, str, NumPy array (a
    tensor), or a list of ints, floats or strs."""
    out = bytes_field(1, name)
    if isinstance(value, bool) or isinstance(value, (int, np.integer)):
        return out + varint_field(3, int(value)) + varint_field(20, _INT)
    if isinstance(value, (float, np.floating)):
        return out + float_field(2, value) + varint_field(20, _FLOAT)
    if isinstance(value, str):
        return out + bytes_field(4, value) + varint_field(20, _STRING)
    if isinstance(value, np.ndarray):
        return out + bytes_field(5, tensor("", value)) + varint_field(20, _TENSOR)
    value = list(value)
    if all(isinstance(v, str) for v in value) and value:
        return out + b"".join(bytes_field(9, v) for v in value) + varint_field(20, _STRINGS)
    if all(isinstance(v, (int, np.integer)) for v in value):
        return out + b"".join(varint_field(8, v) for v in value) + varint_field(20, _INTS)
    return out + b"".join(float_field(7, v) for v in value) + varint_field(20, _FLOATS)


def node(op_type, inputs, outputs, name, attributes):
    """A NodeProto; an empty input name is an omitted optional input."""
    out = b"".join(bytes_field(1, i) for i in inputs) + b"".join(bytes_field(2, o) for o in outputs)
    out += bytes_field(3, name) + bytes_field(4, op_type)
    return out + b"".join(bytes_field(5, attribute(k, v)) for k, v in attributes.items())


def value_info(name, dtype, shape):
    """A ValueInfoProto for a tensor: shape entries are ints (dim_value), strs (dim_param) or
    None (a dim of unknown size)."""
    dims = b"".join(bytes_field(1, b"" if d is None else bytes_field(2, d) if isinstance(d, str) else
                                varint_field(1, d)) for d in shape)
    tensor_type = varint_field(1, DATA_TYPE[np.dtype(dtype)]) + bytes_field(2, dims)
    return bytes_field(1, name) + bytes_field(2, bytes_field(1, tensor_type))


def graph(name, nodes, initializers, inputs, outputs):
    """A GraphProto from already encoded nodes, initializers (TensorProtos) and value infos."""
    out = b"".join(bytes_field(1, n) for n in nodes) + bytes_field(2, name)
    out += b"".join(bytes_field(5, t) for t in initializers)
    out += b"".join(bytes_field(11, i) for i in inputs)
    return out + b"".join(bytes_field(12, o) for o in outputs)


def model(graph_bytes, ir_version, opset, producer_version):
    """A ModelProto importing the default domain at `opset`."""
    out = varint_field(1, ir_version) + bytes_field(2, "seqlab") + bytes_field(3, producer_version)
    out += bytes_field(7, graph_bytes)
    return out + bytes_field(8, bytes_field(1, "") + varint_field(2, opset))
