"""The Summary protocol buffers of TensorBoard's event files, built with the tensorboard package's
own classes (tensorboard.compat.proto: Event, Summary, HistogramProto, TensorProto), and its
EventFileWriter, which frames each serialized Event as a TFRecord (length, masked CRC-32C, data,
masked CRC-32C) from a background thread, as torch.utils.tensorboard does.
Imported only when a SummaryWriter is made: `pip install seqlab[tensorboard]` installs it."""
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.summary.writer.event_file_writer import EventFileWriter  # noqa: F401


def event(wall_time, step=None, value=None, session_log=None):
    """An Event at `step` holding one Summary.Value, or a SessionLog."""
    e = Event(wall_time=wall_time, session_log=session_log)
    if step is not None:
        e.step = step
    if value is not None:
        e.summary.value.append(value)
    return e


def session_start():
    """SessionLog START: TensorBoard drops the events of this run at and after its step (purge_step)."""
    return SessionLog(status=SessionLog.START)


def scalar(tag, value):
    return Summary.Value(tag=tag, simple_value=value)


def histogram(tag, lo, hi, num, total, total_squares, bucket_limits, bucket_counts):
    return Summary.Value(tag=tag, histo=HistogramProto(min=lo, max=hi, num=num, sum=total, sum_squares=total_squares,
                                                       bucket_limit=bucket_limits, bucket=bucket_counts))


def image(tag, height, width, channels, png):
    return Summary.Value(tag=tag, image=Summary.Image(height=height, width=width, colorspace=channels,
                                                      encoded_image_string=png))


def text(tag, string):
    """TensorBoard's text plugin: a string tensor of shape [1] tagged with the plugin's name."""
    tensor = TensorProto(dtype="DT_STRING", string_val=[string.encode("utf-8")],
                         tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text"))
    return Summary.Value(tag=tag, metadata=metadata, tensor=tensor)
