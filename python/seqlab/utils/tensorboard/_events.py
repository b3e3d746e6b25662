"""TensorBoard's event files, written without TensorFlow or protobuf.

An event file is a sequence of TFRecords, each
    uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)
(little-endian), where data is one serialized `Event` protocol buffer (tensorflow/core/util/
event.proto): wall_time = 1 (double), step = 2 (int64), file_version = 3 (string),
summary = 5 (Summary), session_log = 6 (SessionLog). Summary holds repeated Value = 1 with
tag = 1, simple_value = 2 (float), image = 4, histo = 5, tensor = 8, metadata = 9.
Only the few messages a SummaryWriter needs are encoded, by the protobuf wire format
(seqlab/_protobuf.py, shared with the ONNX exporter)."""
import os
import socket
import struct
import time

from ..._protobuf import bytes_field, double_field, float_field, packed_doubles, varint_field

# ----------------------------------------------------------------------------- CRC-32C
# Castagnoli's polynomial, reflected (0x82F63B78): what TFRecord checksums use.
_CRC_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _CRC_TABLE.append(_c)


def crc32c(data):
    crc = 0xFFFFFFFF
    table = _CRC_TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    """TFRecord's mask: rotate right by 15 bits and add a constant (a CRC of data that holds
    CRCs is then not trivially zero)."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def record(data):
    """One TFRecord around `data`."""
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked_crc32c(length)) + data + struct.pack("<I", masked_crc32c(data))


# ----------------------------------------------------------------------------- messages
def event(wall_time, step=None, summary=None, file_version=None, session_log=None):
    out = double_field(1, wall_time)
    if step is not None:
        out += varint_field(2, step)
    if file_version is not None:
        out += bytes_field(3, file_version)
    if summary is not None:
        out += bytes_field(5, summary)
    if session_log is not None:
        out += bytes_field(6, session_log)
    return out


def summary(*values):
    return b"".join(bytes_field(1, v) for v in values)


def scalar_value(tag, value):
    return bytes_field(1, tag) + float_field(2, value)


def histogram_value(tag, lo, hi, num, total, total_squares, bucket_limits, bucket_counts):
    histo = (double_field(1, lo) + double_field(2, hi) + double_field(3, num) + double_field(4, total)
             + double_field(5, total_squares) + packed_doubles(6, bucket_limits) + packed_doubles(7, bucket_counts))
    return bytes_field(1, tag) + bytes_field(5, histo)


def image_value(tag, height, width, channels, png):
    image = varint_field(1, height) + varint_field(2, width) + varint_field(3, channels) + bytes_field(4, png)
    return bytes_field(1, tag) + bytes_field(4, image)


def text_value(tag, text):
    """TensorBoard's text plugin: a string tensor (DT_STRING = 7, shape [1]) tagged 'text'."""
    plugin = bytes_field(1, bytes_field(1, "text"))                # SummaryMetadata.plugin_data.plugin_name
    shape = bytes_field(2, bytes_field(2, varint_field(1, 1)))     # TensorShapeProto { dim { size: 1 } }
    tensor = varint_field(1, 7) + shape + bytes_field(8, text)
    return bytes_field(1, tag) + bytes_field(8, tensor) + bytes_field(9, plugin)


def session_start():
    return varint_field(1, 1)     # SessionLog { status: START }


# ----------------------------------------------------------------------------- the file
_uid = 0


class EventFileWriter:
    """Appends events to events.out.tfevents.<time>.<host>.<pid>.<n><suffix> in log_dir,
    buffering up to max_queue of them or flush_secs seconds; each flush is one write + fsync-free
    flush of the open file (readers see whole records)."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        global _uid
        os.makedirs(log_dir, exist_ok=True)
        _uid += 1
        name = f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}.{os.getpid()}.{_uid}{filename_suffix}"
        self.path = os.path.join(log_dir, name)
        self._file = open(self.path, "wb")
        self._queue = []
        self._max_queue, self._flush_secs = max(1, int(max_queue)), float(flush_secs)
        self._last_flush = time.monotonic()
        self.add_event(event(time.time(), step=0, file_version="brain.Event:2"))
        self.flush()

    def add_event(self, data):
        if self._file is None:
            raise RuntimeError(f"SummaryWriter: the event file {self.path} is closed")
        self._queue.append(record(data))
        if len(self._queue) >= self._max_queue or time.monotonic() - self._last_flush >= self._flush_secs:
            self.flush()

    def flush(self):
        if self._file is None:
            return
        if self._queue:
            self._file.write(b"".join(self._queue))
            self._queue.clear()
        self._file.flush()
        self._last_flush = time.monotonic()

    def close(self):
        if self._file is not None:
            self.flush()
            self._file.close()
            self._file = None
