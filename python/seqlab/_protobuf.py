"""The protocol buffer wire format, for the few messages seqlab writes itself (TensorBoard's
event files: utils/tensorboard/_events.py; ONNX models: onnx/_proto.py), with no protobuf import.

A field is its key (number << 3 | wire type) as a varint, then a varint (wire type 0), 8 bytes
(1), a length and bytes (2) or 4 bytes (5); a message is its fields concatenated
(https://protobuf.dev/programming-guides/encoding/)."""
import struct


def varint(n):
    """n as a base-128 varint, low 7 bits first; a negative int64 as its two's complement, as protobuf does."""
    n &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def varint_field(number, value):
    """An int, enum or bool field (wire type 0)."""
    return varint(number << 3) + varint(int(value))


def double_field(number, value):
    """A double field (wire type 1)."""
    return varint(number << 3 | 1) + struct.pack("<d", float(value))


def float_field(number, value):
    """A float field (wire type 5)."""
    return varint(number << 3 | 5) + struct.pack("<f", float(value))


def bytes_field(number, value):
    """A string, bytes or embedded message field (wire type 2); str is UTF-8 encoded."""
    if isinstance(value, str):
        value = value.encode("utf-8")
    return varint(number << 3 | 2) + varint(len(value)) + value


def packed_doubles(number, values):
    """A packed repeated double field."""
    return bytes_field(number, b"".join(struct.pack("<d", float(v)) for v in values))
