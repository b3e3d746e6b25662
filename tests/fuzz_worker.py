"""The child process of tests/test_fuzz.py: reads one case per line (JSON) on stdin, runs it
with seqlab and with torch, and writes one result per line (JSON) on stdout. A case that
crashes this process (a segfault, an abort) or hangs it is reported by the parent with the
case as its reproducer; nothing here needs to survive a crash.

A case: {"call": "method" | "function", "name": op, "args": [...], "kwargs": {...}}; or
{"call": "module", "name": "nn.Linear", "args", "kwargs", "input": [...]}: built and called
on the input, the output compared by shape and dtype only (the libraries' initial values
differ); or {"call": "optimizer", "name": "optim.SGD", "kwargs"}: built over one parameter and
stepped twice with a fixed gradient, the parameter compared; or {"call": "reader", "name":
"lm.NGram.load_arpa", "path", "kwargs"}: a file reader of seqlab's on a damaged file (seqlab
only: torch has no such reader); or {"call": "api", "name", "kwargs"}: a case of
tests/fuzz_api_cases.py (the data, n-gram and embedding APIs), which runs seqlab and its oracle
itself and raises Wrong for a wrong answer. An
argument is JSON, or {"tensor": {"shape", "dtype", "data", "view"}} (built the same way for
both libraries from one NumPy array), {"tensors": [tensor specs]} (a list of tensors), or
{"dtype": name}."""
import json
import math
import sys

import numpy as np

import seqlab
import torch

torch.set_num_threads(1)
seqlab.set_num_threads(1)

DTYPES = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "bool": np.bool_}


def make_array(spec):
    shape = tuple(spec["shape"])
    data = np.asarray(spec["data"], dtype=np.float64)
    count = int(np.prod(shape)) if shape else 1
    flat = np.resize(data, count) if data.size else np.zeros(count)
    return flat.reshape(shape).astype(DTYPES[spec["dtype"]])


def make_tensor(lib, spec):
    arr = make_array(spec)
    t = lib.tensor(arr.tolist(), dtype=getattr(lib, spec["dtype"]))
    view = spec.get("view", "contiguous")
    if view == "transposed" and t.dim() >= 2:
        t = t.transpose(0, t.dim() - 1)
    elif view == "expanded" and t.dim() >= 1 and t.shape[0] >= 1:
        t = t.narrow(0, 0, 1).expand(3, *t.shape[1:])  # stride 0 along dim 0
    elif view == "strided" and t.dim() >= 1 and t.shape[0] > 1:
        t = t[::2]
    return t


def build(lib, value):
    if isinstance(value, dict) and "tensor" in value:
        return make_tensor(lib, value["tensor"])
    if isinstance(value, dict) and "dtype" in value and len(value) == 1:  # a dtype, by name
        return getattr(lib, value["dtype"])
    if isinstance(value, dict) and "tensors" in value:
        return [make_tensor(lib, s) for s in value["tensors"]]
    if isinstance(value, list):
        return [build(lib, v) for v in value]
    return value


def describe(out):
    """A JSON-able summary of a result: tensors as shape, dtype and values."""
    if isinstance(out, (seqlab.Tensor, torch.Tensor)):
        arr = np.asarray(out.detach().tolist(), dtype=np.float64) if out.numel() else np.zeros(tuple(out.shape))
        return {"shape": list(out.shape), "dtype": str(out.dtype).split(".")[-1],
                "values": [None if math.isnan(v) else v for v in arr.reshape(-1).tolist()],
                "nan": [bool(math.isnan(v)) for v in arr.reshape(-1).tolist()]}
    if isinstance(out, (tuple, list)):
        return [describe(o) for o in out]
    if isinstance(out, (bool, int, float, str)) or out is None:
        return out
    return {"type": type(out).__name__}


def shapes_only(out):
    """A described result with the values dropped, at any depth ((output, (h_n, c_n)))."""
    if isinstance(out, list):
        return [shapes_only(o) for o in out]
    if isinstance(out, dict) and "values" in out:
        out["values"], out["nan"] = None, None
    return out


def lookup(lib, name):
    target = lib
    for part in name.split("."):
        target = getattr(target, part)
    return target


def run(lib, case):
    args = [build(lib, a) for a in case.get("args", [])]
    kwargs = {k: build(lib, v) for k, v in case.get("kwargs", {}).items()}
    name = case["name"]
    if case["call"] == "module":
        module = lookup(lib, name)(*args, **kwargs)
        out = describe(module(*[build(lib, x) for x in case["input"]]))
        return {"ok": True, "out": shapes_only(out)}  # the two libraries initialise differently
    if case["call"] == "api":
        import fuzz_api_cases  # beside this file; imported on first use (it brings the data API)
        return {"ok": True, "out": fuzz_api_cases.run(name, case["kwargs"])}
    if case["call"] == "reader":
        lookup(lib, name)(case["path"], **kwargs)
        return {"ok": True, "out": None}
    if case["call"] == "optimizer":
        p = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        opt = lookup(lib, name)([p], **kwargs)
        for _ in range(2):
            p.grad = lib.tensor([0.5, -0.25, 1.0])
            opt.step()
        return {"ok": True, "out": describe(p)}
    if case["call"] == "method":
        self, rest = args[0], args[1:]
        fn = getattr(self, name)
        out = fn(*rest, **kwargs)
        if name.endswith("_"):
            out = self  # an in-place op: its result is self
    else:
        out = lookup(lib, name)(*args, **kwargs)
    return {"ok": True, "out": describe(out)}


def main():
    sys.stdout.write("ready\n")  # imports done: from now on the parent times each case
    sys.stdout.flush()
    for line in sys.stdin:
        case = json.loads(line)
        result = {}
        libs = (("seqlab", seqlab),) if case["call"] in ("reader", "api") else (("torch", torch), ("seqlab", seqlab))
        for libname, lib in libs:
            try:
                result[libname] = run(lib, case)
            except Exception as e:  # every exception is an answer; only a crash is not
                result[libname] = {"ok": False, "exc": type(e).__name__, "msg": str(e)[:300]}
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
