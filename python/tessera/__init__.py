"""Tessera image graphs from Python: NumPy arrays in and out, results as Python objects.

    import numpy as np, tessera

    graph = tessera.Graph.parse('''
    version: 1
    nodes:
      photo: { op: input, width: 640, height: 480, channels: 3 }
      soft: { op: gaussianBlur, input: photo, sigma: 2 }
      heat: { op: saliency, input: photo }
    ''')
    result = graph.run(inputs={"photo": array}, keep=["soft"])
    blurred = result.images["soft"]          # a (480, 640, 3) uint8 array
    boxes = result.values["heat.boxes"]      # {"kind": "boxes", "boxes": [{"x": ..., ...}]}

A small ctypes layer over Tessera's C API (libtessera.so, `tessera.h`). The library is found at
$TESSERA_LIBRARY, else beside this package (`make python` puts it there), else on the loader's path.
A graph runs with the GIL released, so the caller's other threads keep running; one of them may stop
it with `Graph.cancel()`. Errors raise `TesseraError` with Tessera's own message and, for a graph's
mistakes, its file, line and column.
"""
import ctypes
import ctypes.util
import json
import os
import threading

import numpy as np

__all__ = ["Graph", "Result", "TesseraError", "GraphError", "RunError", "CancelledError", "load_plugin",
           "version", "library"]

_FAILED, _INVALID, _CANCELLED = 1, 2, 3
_DEPTHS = {np.dtype(np.uint8): 8, np.dtype(np.uint16): 16, np.dtype(np.float32): 32}
_DTYPES = {bits: dtype for dtype, bits in _DEPTHS.items()}


class TesseraError(Exception):
    """A failure reported by Tessera: `message` as the command line prints it, and where it is written
    (`file`, `line`, `column`) when it comes from a graph (line and column 0 when it has no line)."""

    def __init__(self, message, file=None, line=0, column=0):
        super().__init__(message)
        self.message, self.file, self.line, self.column = message, file, line, column


class GraphError(TesseraError):
    """The graph, an override or a supplied input is invalid (nothing ran)."""


class RunError(TesseraError):
    """The run failed: a file missing or broken, a node failed."""


class CancelledError(RunError):
    """The run was stopped by `Graph.cancel()` or the progress callback."""


class _Image(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int), ("channels", ctypes.c_int),
                ("depth", ctypes.c_int), ("row_bytes", ctypes.c_size_t), ("data", ctypes.c_void_p)]


_PROGRESS = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_double, ctypes.c_void_p)
_lib = None
_lib_lock = threading.Lock()


def _find_library():
    candidates = [os.environ.get("TESSERA_LIBRARY"),
                  os.path.join(os.path.dirname(os.path.abspath(__file__)), "libtessera.so"),
                  ctypes.util.find_library("tessera")]
    for candidate in candidates:
        if candidate and (os.path.exists(candidate) or not os.path.isabs(candidate)):
            return candidate
    raise OSError("libtessera.so not found: build it with `make libtessera` (out/lib/libtessera.so) and set "
                  "TESSERA_LIBRARY to it, or install this package after `make python`")


def library():
    """The loaded C library (loaded on first use)."""
    global _lib
    with _lib_lock:
        if _lib is None:
            lib = ctypes.CDLL(_find_library())  # CDLL: the GIL is released during each call
            graph, text, status = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
            for name, result, arguments in [
                ("tessera_version", text, []),
                ("tessera_last_error", text, []),
                ("tessera_last_error_location", status,
                 [ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int)]),
                ("tessera_load_plugin", status, [text]),
                ("tessera_graph_load", graph, [text]),
                ("tessera_graph_parse", graph, [text, text]),
                ("tessera_graph_set", status, [graph, text]),
                ("tessera_graph_set_input", status, [graph, text, ctypes.POINTER(_Image)]),
                ("tessera_graph_keep", status, [graph, text]),
                ("tessera_graph_run", status, [graph, ctypes.c_int]),
                ("tessera_graph_image_info", status, [graph, text, ctypes.POINTER(_Image)]),
                ("tessera_graph_read_image", status, [graph, text, ctypes.POINTER(_Image)]),
                ("tessera_graph_set_progress", None, [graph, _PROGRESS, ctypes.c_void_p]),
                ("tessera_graph_cancel", None, [graph]),
                ("tessera_graph_outputs", text, [graph]),
                ("tessera_graph_value_json", text, [graph, text]),
                ("tessera_graph_result_json", text, [graph]),
                ("tessera_graph_free", None, [graph]),
            ]:
                function = getattr(lib, name)
                function.restype, function.argtypes = result, arguments
            _lib = lib
        return _lib


def _error(kind):
    """The calling thread's last failure as an exception of `kind`."""
    lib = library()
    message = lib.tessera_last_error().decode()
    file, line, column = ctypes.c_char_p(), ctypes.c_int(), ctypes.c_int()
    if lib.tessera_last_error_location(ctypes.byref(file), ctypes.byref(line), ctypes.byref(column)):
        return kind(message, file.value.decode(), line.value, column.value)
    return kind(message)


def _check(status):
    if status == _INVALID:
        raise _error(GraphError)
    if status == _CANCELLED:
        raise _error(CancelledError)
    if status != 0:
        raise _error(RunError)


def version():
    """Tessera's version, as "0.1.0"."""
    return library().tessera_version().decode()


def load_plugin(path):
    """Loads a plugin's nodes (a .so) for the graphs loaded after this call."""
    if library().tessera_load_plugin(os.fsencode(path)) != 0:
        raise _error(TesseraError)


def _literal(value):
    """A Python value as a YAML literal for an override."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_literal(item) for item in value) + "]"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value))


class Result:
    """What a run gave: `images` (the kept nodes' images as arrays), `values` (every result that is not
    an image, as Python objects, by "node.output") and `files` (the files the run wrote)."""

    def __init__(self, images, values, files):
        self.images, self.values, self.files = images, values, files

    def __repr__(self):
        return f"Result(images={sorted(self.images)}, values={sorted(self.values)}, files={self.files})"


class Graph:
    """A validated graph with its overrides and inputs. Use it from one thread at a time, except
    `cancel()`, which any thread may call while `run()` runs."""

    def __init__(self, pointer):
        self._pointer = pointer
        self._kept = []

    @classmethod
    def load(cls, path):
        """Reads and validates a graph file (YAML or JSON). Raises GraphError with every problem."""
        pointer = library().tessera_graph_load(os.fsencode(path))
        if not pointer:
            raise _error(GraphError)
        return cls(pointer)

    @classmethod
    def parse(cls, text, base_folder=None):
        """Validates graph text; relative paths in it resolve against `base_folder` (default: the
        current folder)."""
        folder = None if base_folder is None else os.fsencode(base_folder)
        pointer = library().tessera_graph_parse(text.encode(), folder)
        if not pointer:
            raise _error(GraphError)
        return cls(pointer)

    def _graph(self):
        if not self._pointer:
            raise ValueError("the graph is closed")
        return self._pointer

    def set(self, name, value=None):
        """Overrides a parameter as `tessera run --set` does: set("soft.sigma", 3) or
        set("soft.sigma=3"). The graph is validated again; on errors it stays as it was."""
        assignment = name if value is None else f"{name}={_literal(value)}"
        _check(library().tessera_graph_set(self._graph(), assignment.encode()))

    def set_input(self, node, array):
        """Supplies an `input` node's image: an array of shape (height, width) for gray or (height,
        width, channels) with 1 to 4 channels, of uint8, uint16 or float32 (float64 is converted). The
        pixels are copied. One that does not match the node's declared size and channels raises
        GraphError at the node's line."""
        array = np.asarray(array)
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        if array.dtype not in _DEPTHS:
            raise TypeError(f"input '{node}': {array.dtype} samples; use uint8, uint16 or float32")
        if array.ndim == 2:
            array = array[:, :, np.newaxis]
        if array.ndim != 3:
            raise ValueError(f"input '{node}': an array of shape {array.shape}; use (height, width) or "
                             "(height, width, channels)")
        # Rows may be apart (a crop of a larger array); within a row, samples must be packed.
        if array.strides[2] != array.itemsize or array.strides[1] != array.shape[2] * array.itemsize \
                or array.strides[0] <= 0:
            array = np.ascontiguousarray(array)
        image = _Image(array.shape[1], array.shape[0], array.shape[2], _DEPTHS[array.dtype],
                       array.strides[0], array.ctypes.data)
        _check(library().tessera_graph_set_input(self._graph(), node.encode(), ctypes.byref(image)))

    def keep(self, node):
        """Keeps `node`'s image in memory at the runs that follow, for `image()`."""
        _check(library().tessera_graph_keep(self._graph(), node.encode()))
        if node not in self._kept:
            self._kept.append(node)

    def run(self, inputs=None, keep=(), threads=0, progress=None):
        """Runs the graph and returns a Result. `inputs` maps `input` nodes to arrays (see set_input);
        `keep` names nodes whose images come back as arrays; `threads` 0 takes one per core;
        `progress(fraction)` is called from the run's threads (a true return value stops the run).
        Raises RunError, or CancelledError when stopped."""
        for node, array in (inputs or {}).items():
            self.set_input(node, array)
        for node in keep:
            self.keep(node)
        lib, graph = library(), self._graph()
        failure = []

        def report(fraction, _):
            try:
                return 1 if progress(fraction) else 0
            except BaseException as error:  # raised again after the run, which it stops
                failure.append(error)
                return 1

        callback = _PROGRESS(report) if progress else _PROGRESS()
        lib.tessera_graph_set_progress(graph, callback, None)
        try:
            status = lib.tessera_graph_run(graph, threads)
        finally:
            lib.tessera_graph_set_progress(graph, _PROGRESS(), None)
        if failure:
            raise failure[0]
        _check(status)
        result = json.loads(lib.tessera_graph_result_json(graph).decode())
        return Result({node: self.image(node) for node in self._kept}, result["values"], result["files"])

    def cancel(self):
        """Stops the run in progress (from any thread); called with no run in progress, it stops the
        next one before it starts."""
        library().tessera_graph_cancel(self._graph())

    def image(self, node, dtype=None, channels=None):
        """A kept image of the last run as an array: (height, width) for one channel, else (height,
        width, channels); by default in the image's own sample type and channels. Integers are rounded
        as `save` writes them."""
        lib, info = library(), _Image()
        _check_run(lib.tessera_graph_image_info(self._graph(), node.encode(), ctypes.byref(info)))
        dtype = np.dtype(dtype) if dtype is not None else _DTYPES[info.depth]
        if dtype not in _DEPTHS:
            raise TypeError(f"{dtype} samples; use uint8, uint16 or float32")
        channels = channels or info.channels
        array = np.empty((info.height, info.width, channels), dtype=dtype)
        into = _Image(info.width, info.height, channels, _DEPTHS[dtype], array.strides[0], array.ctypes.data)
        _check_run(lib.tessera_graph_read_image(self._graph(), node.encode(), ctypes.byref(into)))
        return array[:, :, 0] if channels == 1 else array

    def value(self, output):
        """The value of an output after the last run ("heat.boxes", or "heat" for its first output) as
        Python objects: its kind's JSON (schemas in Docs/schemas/), as {"kind": "boxes", "boxes": [...]}."""
        text = library().tessera_graph_value_json(self._graph(), output.encode())
        if text is None:
            raise _error(TesseraError)
        return json.loads(text.decode())

    @property
    def outputs(self):
        """The files the last run wrote."""
        text = library().tessera_graph_outputs(self._graph()).decode()
        return text.split("\n") if text else []

    def close(self):
        """Frees the graph (also done when it is collected)."""
        if self._pointer:
            library().tessera_graph_free(self._pointer)
            self._pointer = None

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()

    def __del__(self):
        if getattr(self, "_pointer", None) and _lib is not None:
            _lib.tessera_graph_free(self._pointer)
            self._pointer = None


def _check_run(status):
    if status != 0:
        raise _error(TesseraError)
