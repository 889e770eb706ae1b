"""Build one side of `qmigrate verify` and drain it, under the user's Python with TensorFlow.

usage: python verify_runner.py SPEC_JSON OUT_JSON

Runs as a script in the user's interpreter (Python 3.6+, TF 1.x, or TF 2 through tf.compat.v1 in
graph mode): it must stay Python-3.6-compatible and import neither qmigrate nor libcst. It runs the
user's code: it imports the module, calls the input function with the given arguments and drains
what it returns (tensors, or a Dataset read through an iterator), with queue runners started.

SPEC: {"module": path, "name": module name, "path": [folders put first on sys.path], "function",
"args": Python keyword arguments as text, "batches", "towers", "shard" (call each tower with
num_shards/shard_index), "deterministic" (patch random augmentation), "rounds", "order_batches"
(a second build with another graph seed, to tell a shuffled order), "probe" (a third build with
Dataset.repeat made a no-op, to read each tower's first epoch exactly), "probe_batches"}.
OUT: {"ok", "stage", "error", "patched", "structure", "components", "towers": [[hash per example]],
"batch_shapes", "ended", "batches", "rates", "order": [[hash...]], "probe": {...}}. It always writes
OUT, even when the user's code fails (then "ok" is false and "error" holds the traceback).
"""
import hashlib
import json
import os
import sys
import time
import traceback

# This file lies in the qmigrate package folder; the user's `import model` must not find ours.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]


class Failure(Exception):
    pass


def _load_tf():
    import tensorflow

    if tensorflow.__version__.startswith("2."):
        tf = tensorflow.compat.v1
        tf.disable_eager_execution()
        return tf
    return tensorflow


# ---- deterministic stand-ins for random augmentation -------------------------------------------

def _patches(tf):
    """name -> replacement(original, *args, **kwargs), each deterministic, same signature."""

    def crop(original, value, size, seed=None, name=None):
        # The central crop of the requested size, as evaluation pipelines do.
        value = tf.convert_to_tensor(value)
        size = tf.convert_to_tensor(size, dtype=tf.int32)
        begin = (tf.shape(value) - size) // 2
        return tf.slice(value, begin, size, name=name)

    def same(original, image, *args, **kwargs):
        return tf.identity(image)

    def uniform(original, shape, minval=0, maxval=None, dtype=tf.float32, seed=None, name=None):
        dtype = tf.as_dtype(dtype)
        if dtype.is_integer:
            middle = minval
        else:
            middle = (minval + (1 if maxval is None else maxval)) / 2.0
        return tf.zeros(shape, dtype) + tf.cast(middle, dtype)

    def normal(original, shape, mean=0.0, stddev=1.0, dtype=tf.float32, seed=None, name=None):
        return tf.zeros(shape, dtype) + tf.cast(mean, dtype)

    def whole_box(original, image_size, bounding_boxes, *args, **kwargs):
        # The whole image: begin at 0, the full height and width, every channel.
        image_size = tf.convert_to_tensor(image_size)
        begin = tf.zeros([3], image_size.dtype)
        size = tf.concat([image_size[:2], tf.constant([-1], image_size.dtype)], 0)
        return begin, size, tf.constant([[[0.0, 0.0, 1.0, 1.0]]])

    return [
        ("", "random_crop", crop), ("image", "random_crop", crop), ("random", "crop", crop),
        ("image", "random_flip_left_right", same), ("image", "random_flip_up_down", same),
        ("image", "random_brightness", same), ("image", "random_contrast", same),
        ("image", "random_hue", same), ("image", "random_saturation", same),
        ("image", "random_jpeg_quality", same),
        ("image", "sample_distorted_bounding_box", whole_box),
        ("", "random_uniform", uniform), ("random", "uniform", uniform),
        ("", "random_normal", normal), ("random", "normal", normal),
        ("", "truncated_normal", normal), ("random", "truncated_normal", normal),
    ]


def install_patches(tf, used):
    """Replace the random augmentation ops in tf's namespaces; record in `used` those called."""
    for space, name, replacement in _patches(tf):
        owner = getattr(tf, space, None) if space else tf
        if owner is None or not hasattr(owner, name):
            continue
        label = "tf.%s%s" % (space + "." if space else "", name)
        setattr(owner, name, _patched(label, getattr(owner, name), replacement, used))


def _patched(label, original, replacement, used):
    def patched(*args, **kwargs):
        used.add(label)
        return replacement(original, *args, **kwargs)
    patched.__name__ = getattr(original, "__name__", label)
    patched.__doc__ = getattr(original, "__doc__", None)
    return patched


def _shuffle_once(buffer_size, count=None, seed=None):
    """shuffle_and_repeat without the repeat: the transformation a one-epoch read applies."""
    return lambda dataset: dataset.shuffle(buffer_size, seed=seed)


class _NoRepeat(object):
    """Dataset.repeat made a no-op while it is active, and shuffle_and_repeat a shuffle (the
    fused stage qmigrate emits for shuffled pipelines): a pipeline then gives exactly one epoch."""

    def __enter__(self):
        from tensorflow.python.data.ops import dataset_ops

        self.saved = []
        for name in ("DatasetV2", "Dataset", "DatasetV1"):
            cls = getattr(dataset_ops, name, None)
            if cls is not None and "repeat" in vars(cls):
                self.saved.append((cls, "repeat", vars(cls)["repeat"]))
                cls.repeat = lambda self, count=None: self
        import tensorflow

        for path in ("contrib.data", "data.experimental"):
            module = tensorflow
            for part in path.split("."):
                module = getattr(module, part, None) if module is not None else None
            if module is not None and hasattr(module, "shuffle_and_repeat"):
                self.saved.append((module, "shuffle_and_repeat", module.shuffle_and_repeat))
                module.shuffle_and_repeat = _shuffle_once
        return self

    def __exit__(self, *exc):
        for owner, name, original in self.saved:
            setattr(owner, name, original)


# ---- building and draining ----------------------------------------------------------------------

def load_module(path, name, folders):
    import importlib.util

    sys.path[0:0] = list(folders)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its siblings importing it by name get this very module
    spec.loader.exec_module(module)
    return module


def _is_dataset(value):
    return any(cls.__name__ in ("Dataset", "DatasetV1", "DatasetV2") for cls in type(value).__mro__)


def describe(structure):
    """Nested structure as text: dicts by sorted key, lists and tuples told apart; T a tensor."""
    if isinstance(structure, dict):
        return "{%s}" % ", ".join("%r: %s" % (k, describe(structure[k])) for k in sorted(structure))
    if isinstance(structure, list):
        return "[%s]" % ", ".join(describe(v) for v in structure)
    if isinstance(structure, tuple):
        return "(%s)" % ", ".join(describe(v) for v in structure)
    return "T"


def _paths(structure, prefix=""):
    """The name of each component in nest.flatten order (dict keys sorted, as nest does)."""
    if isinstance(structure, dict):
        out = []
        for key in sorted(structure):
            out += _paths(structure[key], "%s[%r]" % (prefix, key))
        return out
    if isinstance(structure, (list, tuple)):
        out = []
        for index, value in enumerate(structure):
            out += _paths(value, "%s[%d]" % (prefix, index))
        return out
    return [prefix or "output"]


class Tower(object):
    """One call of the input function in a graph: its tensors, and an initializer if a Dataset."""

    def __init__(self, tf, outputs):
        from tensorflow.python.util import nest

        if callable(outputs) and not _is_dataset(outputs):
            outputs = outputs()  # a factory gave an Estimator input_fn: call it as the Estimator would
        self.initializer = None
        self.kind = "tensors"
        if _is_dataset(outputs):
            self.kind = "dataset"
            make = getattr(tf.data, "make_initializable_iterator", None)
            iterator = make(outputs) if make else outputs.make_initializable_iterator()
            self.initializer = iterator.initializer
            outputs = iterator.get_next()
        self.structure = describe(outputs)
        self.names = _paths(outputs)
        self.tensors = [tf.convert_to_tensor(t) for t in nest.flatten(outputs)]
        if not self.tensors:
            raise Failure("the function returned no tensors")


def row_bytes(np, row):
    row = np.asarray(row)
    if row.dtype == object:  # strings: by value (an object array's bytes are pointers)
        return repr(row.tolist()).encode()
    return np.ascontiguousarray(row).tobytes()


def example_hashes(np, values):
    """One short hash per example: the bytes of its row in every component, in order."""
    sizes = set(len(v) if np.ndim(v) else 1 for v in values)
    if len(sizes) != 1:
        raise Failure("components disagree on the batch size: %s" % sorted(sizes))
    out = []
    for row in range(sizes.pop()):
        digest = hashlib.sha1()
        for value in values:
            digest.update(row_bytes(np, value[row] if np.ndim(value) else value))
        out.append(digest.hexdigest()[:16])
    return out


def sharded(function, spec):
    """Whether each tower asks its own shard: the function takes num_shards and shard_index."""
    if spec["shard"] != "auto":
        return bool(spec["shard"])
    import inspect

    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return "num_shards" in parameters and "shard_index" in parameters


def build(tf, module, spec, kwargs, seed):
    """A graph holding every tower's call of the function."""
    function = getattr(module, spec["function"], None)
    if function is None:
        raise Failure("%s has no function %s" % (spec["module"], spec["function"]))
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(seed)
        towers = []
        for index in range(spec["towers"]):
            arguments = dict(kwargs)
            if sharded(function, spec):
                arguments.update(num_shards=spec["towers"], shard_index=index)
            towers.append(Tower(tf, function(**arguments)))
    return graph, towers


class Session(object):
    """A session over the graph with queue runners started and dataset iterators initialised."""

    def __init__(self, tf, graph, towers):
        self.tf = tf
        with graph.as_default():
            init = [tf.global_variables_initializer(), tf.local_variables_initializer()]
            self.session = tf.Session(graph=graph)
            self.session.run(init + [t.initializer for t in towers if t.initializer is not None])
            self.coord = tf.train.Coordinator()
            self.threads = tf.train.start_queue_runners(sess=self.session, coord=self.coord)

    def close(self):
        self.coord.request_stop()
        try:
            self.coord.join(self.threads, stop_grace_period_secs=5)
        except Exception:
            pass  # a runner stopping with an error after we asked it to stop says nothing about the data
        self.session.close()


def drain(tf, np, session, towers, steps, rounds=1, shapes=None, enough=None):
    """Run every tower `steps` times (all towers in each run); stop at the end of the data.

    Returns (hashes per tower, steps done, ended, [examples/s per round]). With `enough`, stops
    after 10 batches once the first tower gave that many examples.
    """
    streams = [[] for _ in towers]
    fetches = [t.tensors for t in towers]
    per_round = max(1, steps // max(1, rounds))
    rates, spent, seen, done, ended = [], 0.0, 0, 0, False
    for step in range(steps):
        start = time.perf_counter()
        try:
            values = session.session.run(fetches)
        except tf.errors.OutOfRangeError:
            ended = True
            break
        except tf.errors.OpError as error:
            raise Failure("batch %d: %s: %s" % (step + 1, type(error).__name__, error.message.splitlines()[0]))
        spent += time.perf_counter() - start
        done += 1
        for index, tower_values in enumerate(values):
            rows = example_hashes(np, tower_values)
            streams[index] += rows
            seen += len(rows)
            if shapes is not None and index == 0:
                shapes.append([list(np.shape(v)) for v in tower_values])
        if enough and done >= 10 and len(streams[0]) >= enough:
            break
        if done % per_round == 0 and spent > 0:
            rates.append(seen / spent)
            spent, seen = 0.0, 0
    if seen and spent > 0 and (not rates or 2 * (done % per_round) >= per_round):
        rates.append(seen / spent)  # the last, partial round, when the data ended within it
    return streams, done, ended, rates


def drain_each(tf, np, session, towers, cap):
    """Run each tower alone until its data ends (or `cap` batches): (hashes per tower, ended per tower)."""
    streams, ended = [], []
    for tower in towers:
        got, _, finished, _ = drain(tf, np, session, [tower], cap)
        streams.append(got[0])
        ended.append(finished)
    return streams, ended


def run(spec, out):
    stage = "import tensorflow"
    try:
        tf = _load_tf()
        import numpy as np

        out["tf_version"] = tf.__version__ if hasattr(tf, "__version__") else sys.modules["tensorflow"].__version__
        used = set()
        if spec["deterministic"]:
            install_patches(tf, used)
        stage = "import %s" % spec["module"]
        module = load_module(spec["module"], spec["name"], spec["path"])
        stage = "arguments"
        kwargs = eval("dict(%s)" % spec["args"], dict(vars(module)))  # the user's own expression
        stage = "build"
        graph, towers = build(tf, module, spec, kwargs, seed=1)
        out["kind"] = towers[0].kind
        out["structure"] = towers[0].structure
        out["components"] = [{"name": name, "dtype": t.dtype.name,
                              "static_shape": t.get_shape().as_list() if t.get_shape().ndims is not None else None}
                             for name, t in zip(towers[0].names, towers[0].tensors)]
        out["tower_structures"] = sorted(set(t.structure for t in towers))
        out["sharded"] = spec["towers"] > 1 and sharded(getattr(module, spec["function"]), spec)
        stage = "drain"
        session = Session(tf, graph, towers)
        shapes = []
        try:
            streams, done, ended, rates = drain(tf, np, session, towers, spec["batches"], spec["rounds"], shapes)
        finally:
            session.close()
        out.update(towers=streams, batches=done, ended=ended, rates=rates, batch_shapes=shapes)
        if spec["order_batches"]:
            stage = "second build (another graph seed)"
            graph, towers = build(tf, module, spec, kwargs, seed=2)
            session = Session(tf, graph, towers)
            try:
                out["order"] = drain(tf, np, session, towers, spec["order_batches"],
                                     enough=spec["order_examples"])[0]
            finally:
                session.close()
        if spec["probe"]:
            stage = "one-epoch build (Dataset.repeat made a no-op)"
            with _NoRepeat():
                graph, towers = build(tf, module, spec, kwargs, seed=1)
            session = Session(tf, graph, towers)
            try:
                streams, ended = drain_each(tf, np, session, towers, spec["probe_batches"])
            finally:
                session.close()
            out["probe"] = {"towers": streams, "ended": ended}
        out["patched"] = sorted(used)
        out["ok"] = True
    except BaseException as error:  # the user's code may raise anything, even SystemExit
        out["ok"] = False
        out["stage"] = stage
        if isinstance(error, Failure):
            out["error"] = str(error)
        else:
            out["error"] = _trimmed(error)


def _trimmed(error, keep=6):
    """The traceback's last frames outside this file: where the user's code failed."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if os.path.dirname(os.path.abspath(frame[0])) != _HERE]
    text = "".join(traceback.format_list(frames[-keep:]))
    return text + "".join(traceback.format_exception_only(type(error), error)).rstrip()


def main(spec_path, out_path):
    with open(spec_path) as handle:
        spec = json.load(handle)
    out = {"ok": False, "stage": "start", "error": "did not finish"}
    try:
        run(spec, out)
    finally:
        with open(out_path, "w") as handle:
            json.dump(out, handle)
    sys.stdout.flush()
    # Queue runner threads still blocked in TensorFlow must not keep the process alive.
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
