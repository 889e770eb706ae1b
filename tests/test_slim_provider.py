"""slim's DatasetDataProvider, parallel_read and single_pass_read, before and after migration,
drained under real TensorFlow 1.8 and 1.15 (slim lives in tf.contrib: there is no TF 2 run).

Compared as in test_tf_behaviour.py: the structure and static shapes of what the pipeline
returns, the batch shapes, and the multiset of examples (each carries a unique id).
"""
import json
import os
from collections import Counter

import pytest

from conftest import TESTDATA
from qmigrate import api
from qmigrate.engine import Options
from qmigrate.targets import TARGETS
from tfenv import finish, load_json, run_tf, start_tf, tf_python

BEFORE = os.path.join(TESTDATA, "single", "slim_provider.before.py")
TRAIN, EVAL = 4 * 24, 3 * 10  # examples per epoch, as make_slim_data.py writes them

# function, arguments (given the data folder), examples expected, mode: ("epochs", k) drains a
# finite pipeline of k epochs; ("forever", n) takes the first batches of one that repeats n examples.
CASES = [
    ("train_inputs", lambda d: dict(data_dir=d, batch_size=8), 20 * 8, ("forever", TRAIN)),
    ("eval_inputs", lambda d: dict(data_dir=d, batch_size=8), EVAL, ("epochs", 1)),
    ("example_ids", lambda d: dict(data_dir=d, batch_size=6), 20 * 6, ("forever", TRAIN)),
    ("one_pass", lambda d: dict(data_dir=d, batch_size=7), EVAL, ("epochs", 1)),
    # slim's shuffling common queue spans the epochs; migrated, each epoch is whole.
    ("split_inputs", lambda d: dict(data_dir=d, split_name="train", batch_size=8, num_epochs=2), 2 * TRAIN,
     ("epochs", 2)),
    ("split_inputs", lambda d: dict(data_dir=d, split_name="eval", batch_size=8, fine_labels=True, num_epochs=1),
     EVAL, ("epochs", 1)),
    ("split_inputs", lambda d: dict(data_dir=d, split_name="train", batch_size=5), 20 * 5, ("forever", TRAIN)),
    # --unsafe: a dataset made by the caller, its reader class checked when the pipeline is built
    ("eval_given", lambda d: dict(data_dir=d, batch_size=8), 20 * 8, ("forever", EVAL)),
    # --- slim2 ---
    # reader_kwargs: compressed files, read with the compression type of the readers' options
    ("compressed_eval", lambda d: dict(data_dir=d, batch_size=8), EVAL, ("epochs", 1)),
    ("compressed_ids", lambda d: dict(data_dir=d, batch_size=7), 2 * EVAL, ("epochs", 2)),
]


# --- slim3 ---
# Migrated by default (golden, function, arguments, examples expected, mode):
# slim_dataset_table: Datasets made in other modules (testdata/single/slimtable_*.py), found
# through a module-level table of modules or an imported module's function;
# slim_unbatched: records of a parallel_read or a provider returned one a run, batched by a
# tf.train.batch of another function that stays (fed by the iterator's get_next());
# slim_own_handlers: item handler classes of the module's own, proven to build graph ops on the
# tensors they are given only, decode inside the map function.
DEFAULT_CASES = [
    ("slim_dataset_table", "table_inputs", lambda d: dict(name="digits", data_dir=d, split_name="eval", batch_size=8,
                                                          num_epochs=2), 2 * EVAL, ("epochs", 2)),
    ("slim_dataset_table", "table_inputs", lambda d: dict(name="shapes", data_dir=d, split_name="train", batch_size=8,
                                                          num_epochs=1), TRAIN, ("epochs", 1)),
    ("slim_dataset_table", "table_inputs", lambda d: dict(name="shapes", data_dir=d, split_name="train",
                                                          batch_size=6), 20 * 6, ("forever", TRAIN)),
    ("slim_dataset_table", "module_inputs", lambda d: dict(data_dir=d, batch_size=7), EVAL, ("epochs", 1)),
    ("slim_dataset_table", "imported_function_inputs", lambda d: dict(data_dir=d, batch_size=5), 20 * 5,
     ("forever", TRAIN)),
    ("slim_unbatched", "id_batches", lambda d: dict(data_dir=d, batch_size=7), EVAL, ("epochs", 1)),
    ("slim_unbatched", "id_batches", lambda d: dict(data_dir=d, batch_size=8, training=True), 20 * 8,
     ("forever", TRAIN)),
    ("slim_unbatched", "record_batches", lambda d: dict(data_dir=d, batch_size=4), EVAL, ("epochs", 1)),
    # `shuffle=config.shuffle`, an attribute of a config object, tested where the dataset is built
    ("slim_unbatched", "configured_batches", lambda d: dict(data_dir=d, batch_size=7), EVAL, ("epochs", 1)),
    ("slim_unbatched", "configured_batches", lambda d: dict(data_dir=d, batch_size=8, training=True), 20 * 8,
     ("forever", TRAIN)),
    # The batch queue after the provider stays (QM301, its tensors come from another function) and
    # its two threads may swap one record across an epoch boundary of the migrated provider.
    ("slim_unbatched", "record_batches", lambda d: dict(data_dir=d, batch_size=6, training=True), 20 * 6,
     ("forever", TRAIN, 1)),
    ("slim_own_handlers", "pixel_batches", lambda d: dict(data_dir=d, batch_size=8), EVAL, ("epochs", 1)),
    ("slim_own_handlers", "pixel_batches", lambda d: dict(data_dir=d, batch_size=8, split_name="train",
                                                          num_epochs=2), 2 * TRAIN, ("epochs", 2)),
    # slim_default_reader: the reader class a dataset factory passes down, None filled in by
    # each dataset module (testdata/single/slimdefault_*.py), followed to the Dataset.
    ("slim_default_reader", "factory_inputs", lambda d: dict(name="digits", data_dir=d, split_name="eval",
                                                             batch_size=8, num_epochs=2), 2 * EVAL, ("epochs", 2)),
    ("slim_default_reader", "factory_inputs", lambda d: dict(name="shapes", data_dir=d, split_name="train",
                                                             batch_size=8, num_epochs=1), TRAIN, ("epochs", 1)),
    ("slim_default_reader", "chosen_reader_inputs", lambda d: dict(data_dir=d, batch_size=7), EVAL, ("epochs", 1)),
    # --- recparam ---
    # records_through_caller: a provider's records worked on per record, returned in a namedtuple
    # beside a count, and padded-batched (dynamic_pad) by another function: only the provider is
    # rewritten, the batch keeps its queue; 30 eval examples, batches of 4, no partial batch.
    ("records_through_caller", "clip_tensors", lambda d: dict(data_dir=d, batch_size=4), EVAL - EVAL % 4,
     ("epochs", 1)),
    ("records_through_caller", "clip_tensors", lambda d: dict(data_dir=d, batch_size=3, max_frames=3), EVAL,
     ("epochs", 1)),
    # slim_dataset_gone: a Dataset made beside its provider, which nothing else reads, goes with it
    # (the map decodes with its decoder, the files are its data_sources).
    ("slim_dataset_gone", "labelled_batches", lambda d: dict(data_dir=d, batch_size=5), EVAL,
     ("epochs", 1)),
    ("slim_dataset_gone", "labelled_batches", lambda d: dict(data_dir=d, batch_size=8, is_training=True), 20 * 8,
     ("forever", TRAIN)),
]


# slim_provider_alone: a module with a provider and no batching, its records returned one a run
# (drained as rows of one: run_pipeline.py reads batches).
ALONE_CASES = [
    ("eval_record", lambda d: dict(data_dir=d), EVAL, ("epochs", 1)),
    ("shuffled_record", lambda d: dict(data_dir=d, num_epochs=2), 2 * TRAIN, ("epochs", 2)),
]
_AS_ROWS = """

def as_rows(**kwargs):
    return tf.contrib.framework.nest.map_structure(lambda t: tf.expand_dims(t, 0), %s(**kwargs))
"""


@pytest.fixture(scope="module")
def slim_data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("slimdata")
    run_tf(tf_python("1.8"), "make_slim_data.py", folder)
    return str(folder)


@pytest.mark.parametrize("version", ("1.8", "1.15"), ids=lambda v: "tf" + v)
@pytest.mark.parametrize("function,arguments,expected,mode", CASES,
                         ids=["%s-%d" % (case[0], index) for index, case in enumerate(CASES)])
def test_slim_pipeline_gives_the_same_examples(function, arguments, expected, mode, version, slim_data, tmp_path):
    _same_examples(BEFORE, function, arguments, expected, mode, version, slim_data, tmp_path, unsafe=True)


@pytest.mark.parametrize("version", ("1.8",), ids=lambda v: "tf" + v)
@pytest.mark.parametrize("golden,function,arguments,expected,mode", DEFAULT_CASES,
                         ids=["%s-%s-%d" % (case[0], case[1], index) for index, case in enumerate(DEFAULT_CASES)])
def test_default_migrations_give_the_same_examples(golden, function, arguments, expected, mode, version, slim_data,
                                                   tmp_path):
    """Migrated without --unsafe; the dataset modules beside the goldens are importable."""
    before = os.path.join(TESTDATA, "single", golden + ".before.py")
    _same_examples(before, function, arguments, expected, mode, version, slim_data, tmp_path, unsafe=False,
                   env={"PYTHONPATH": os.path.dirname(before)})


@pytest.mark.parametrize("version", ("1.8",), ids=lambda v: "tf" + v)
@pytest.mark.parametrize("function,arguments,expected,mode", ALONE_CASES, ids=[case[0] for case in ALONE_CASES])
def test_a_provider_read_one_record_a_run_gives_the_same_examples(function, arguments, expected, mode, version,
                                                                  slim_data, tmp_path):
    before = os.path.join(TESTDATA, "single", "slim_provider_alone.before.py")
    _same_examples(before, function, arguments, expected, mode, version, slim_data, tmp_path, unsafe=False,
                   suffix=_AS_ROWS % function)


def _same_examples(before, function, arguments, expected, mode, version, slim_data, tmp_path, unsafe, env=None,
                   suffix=None):
    """`suffix`: code added to both programs, whose `as_rows` is run in place of `function`."""
    python = tf_python(version)
    [result] = api.migrate([before], Options(target=TARGETS[version], unsafe=unsafe))
    assert result.changed
    after = tmp_path / "slim_provider.after_run.py"
    after.write_bytes(result.new_source + (suffix or "").encode())
    if suffix is not None:
        with open(before, "rb") as handle:
            before = str(tmp_path / "slim_provider.before_run.py")
            with open(before, "wb") as out:
                out.write(handle.read() + suffix.encode())
        function = "as_rows"
    args = json.dumps(arguments(slim_data))
    max_batches = 10000 if mode[0] == "epochs" else 20
    runs = {}
    for label, path in (("before", before), ("after", str(after))):
        out = str(tmp_path / (label + ".json"))
        runs[label] = (start_tf(python, "run_pipeline.py", path, function, args, max_batches, out, env=env), out)
    got = {}
    for label, (process, out) in runs.items():
        finish(process)
        got[label] = load_json(out)
    old, new = got["before"], got["after"]

    assert new["kind"] == old["kind"]
    assert new["static_shapes"] == old["static_shapes"]
    assert len(old["examples"]) == len(new["examples"]) == expected
    if mode[0] == "epochs":
        assert new["batch_shapes"] == old["batch_shapes"]
        assert Counter(new["examples"]) == Counter(old["examples"])
        assert set(Counter(new["examples"]).values()) == {mode[1]}  # every example once an epoch
    else:
        epoch = mode[1]
        # The common queue spans epochs, so its first batches need not hold every example; every
        # example it gave must be one the migrated pipeline gives, and each run of `epoch`
        # examples of the migrated pipeline is one whole epoch, but for `swaps` records at each
        # end when a multi-threaded queue left after the pipeline reorders neighbours.
        swaps = mode[2] if len(mode) > 2 else 0
        distinct = set(new["examples"])
        assert set(old["examples"]) <= distinct
        assert len(distinct) == epoch
        for start in range(0, len(new["examples"]) - epoch + 1, epoch):
            window = new["examples"][start:start + epoch]
            assert len(distinct - set(window)) <= 2 * swaps
            assert len(window) - len(set(window)) <= 2 * swaps
        assert max(Counter(new["examples"]).values()) - min(Counter(new["examples"]).values()) <= 1


@pytest.mark.parametrize("version", ("1.8",), ids=lambda v: "tf" + v)
def test_clone_shards_split_one_epoch_of_the_provider(version, slim_data, tmp_path):
    """The clones dequeued one provider's batches from a prefetch queue; migrated, each clone reads
    its shard: over the shards, one epoch holds every example the provider gave, each once."""
    python = tf_python(version)
    before = os.path.join(TESTDATA, "single", "slim_provider_clones.before.py")
    # One file-order seed for the shards, which run here in processes of their own (a program's
    # clones share the one it draws at import).
    [result] = api.migrate([before], Options(target=TARGETS[version], seed=11))
    assert b"num_shards" in result.new_source
    after = tmp_path / "slim_provider_clones.after_run.py"
    after.write_bytes(result.new_source)
    runs = {"before": (before, dict(data_dir=slim_data, batch_size=8, num_epochs=1))}
    for index in range(2):
        runs["shard%d" % index] = (str(after), dict(data_dir=slim_data, batch_size=8, num_epochs=1, num_shards=2,
                                                    shard_index=index))
    started = {}
    for label, (path, args) in runs.items():
        out = str(tmp_path / (label + ".json"))
        started[label] = (start_tf(python, "run_pipeline.py", path, "clone_inputs", json.dumps(args), 10000, out), out)
    got = {}
    for label, (process, out) in started.items():
        finish(process)
        got[label] = load_json(out)
    shards = [got["shard0"]["examples"], got["shard1"]["examples"]]
    assert got["shard0"]["static_shapes"] == got["before"]["static_shapes"]
    assert len(got["before"]["examples"]) == TRAIN
    assert not set(shards[0]) & set(shards[1])
    assert Counter(shards[0] + shards[1]) == Counter(got["before"]["examples"])


def test_a_dataset_not_seen_is_refused_when_it_reads_another_format(slim_data, tmp_path):
    """--unsafe migrated given_inputs() for TFRecord datasets: handed a TextLineReader dataset,
    the migrated code says so when it builds the pipeline, instead of decoding lines as examples."""
    [result] = api.migrate([BEFORE], Options(unsafe=True))
    (tmp_path / "migrated.py").write_bytes(result.new_source)
    (tmp_path / "lines.py").write_text(
        "import tensorflow as tf\n"
        "import migrated\n"
        "def line_batches(data_dir, batch_size):\n"
        "    dataset = migrated.get_split(data_dir, 'eval', 30)\n"
        "    dataset.reader = tf.TextLineReader\n"
        "    return migrated.given_inputs(dataset, batch_size)\n")
    args = json.dumps(dict(data_dir=slim_data, batch_size=4))
    with pytest.raises(AssertionError, match="migrated for slim datasets of TFRecord files; this one reads with"):
        run_tf(tf_python("1.8"), "run_pipeline.py", str(tmp_path / "lines.py"), "line_batches", args, 1,
               str(tmp_path / "out.json"), env={"PYTHONPATH": str(tmp_path)})


def test_a_dataset_module_of_the_package_is_read_from_the_package_root(tmp_path):
    """`from pkg.sets import flowers` in pkg/train.py: Python finds pkg under the directory above
    it, and so does qmigrate; the Dataset made there is proven, the provider migrated by default."""
    sets = tmp_path / "pkg" / "sets"
    sets.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (sets / "__init__.py").write_text("")
    (sets / "flowers.py").write_text(
        "import tensorflow as tf\n"
        "slim = tf.contrib.slim\n"
        "def get_split(pattern):\n"
        "    decoder = slim.tfexample_decoder.TFExampleDecoder(\n"
        "        {'x': tf.FixedLenFeature([], tf.int64)}, {'x': slim.tfexample_decoder.Tensor('x')})\n"
        "    return slim.dataset.Dataset(pattern, tf.TFRecordReader, decoder, 10, {})\n")
    train = tmp_path / "pkg" / "train.py"
    train.write_text(
        "import tensorflow as tf\n"
        "from pkg.sets import flowers\n"
        "slim = tf.contrib.slim\n"
        "def inputs(pattern, batch_size):\n"
        "    dataset = flowers.get_split(pattern)\n"
        "    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False)\n"
        "    [x] = provider.get(['x'])\n"
        "    return tf.train.batch([x], batch_size)\n")
    [result] = api.migrate([str(train)])
    assert result.changed and b"dataset.decoder.decode(serialized, ['x'])" in result.new_source
    (sets / "flowers.py").write_text((sets / "flowers.py").read_text().replace("TFRecordReader", "TextLineReader"))
    [result] = api.migrate([str(train)])
    assert not result.changed
    assert any("line 6 of flowers.py) reads with `tf.TextLineReader`" in d.message for d in result.diagnostics)


def _factory_layout(tmp_path, get_split_body, call):
    (tmp_path / "sets.py").write_text(
        "import tensorflow as tf\n"
        "slim = tf.contrib.slim\n"
        "def get_split(pattern, reader=None):\n" + get_split_body +
        "    decoder = slim.tfexample_decoder.TFExampleDecoder(\n"
        "        {'x': tf.FixedLenFeature([], tf.int64)}, {'x': slim.tfexample_decoder.Tensor('x')})\n"
        "    return slim.dataset.Dataset(pattern, reader, decoder, 10, {})\n")
    train = tmp_path / "train.py"
    train.write_text(
        "import tensorflow as tf\n"
        "import sets\n"
        "slim = tf.contrib.slim\n"
        "def inputs(pattern, batch_size):\n"
        "    dataset = %s\n"
        "    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False)\n"
        "    [x] = provider.get(['x'])\n"
        "    return tf.train.batch([x], batch_size)\n" % call)
    [result] = api.migrate([str(train)])
    return result


def test_a_reader_class_left_none_is_the_one_get_split_fills_in(tmp_path):
    """slim's dataset modules: `if reader is None: reader = tf.TFRecordReader`, the caller passing
    none. Proven only while that `if` is the parameter's one binding and the value is passed
    plainly; otherwise the provider stays (migrated with --unsafe, checked when built)."""
    fill = "    if reader is None:\n        reader = tf.TFRecordReader\n"
    result = _factory_layout(tmp_path, fill, "sets.get_split(pattern)")
    assert result.changed and b"dataset.decoder.decode(serialized, ['x'])" in result.new_source
    result = _factory_layout(tmp_path, fill, "sets.get_split(pattern, None)")
    assert result.changed
    lines = "    if reader is None:\n        reader = tf.TFRecordReader\n    reader = tf.TextLineReader\n"
    result = _factory_layout(tmp_path, lines, "sets.get_split(pattern)")
    assert not result.changed
    assert any("is a parameter of get_split()" in d.message for d in result.diagnostics)
    other = "    if reader is None:\n        reader = tf.TextLineReader\n"
    result = _factory_layout(tmp_path, other, "sets.get_split(pattern)")
    assert not result.changed
    assert any("reads with `tf.TextLineReader`" in d.message for d in result.diagnostics)
    result = _factory_layout(tmp_path, fill, "sets.get_split(pattern, *[None])")
    assert not result.changed
    result = _factory_layout(tmp_path, fill, "sets.get_split(pattern, reader=pattern.reader)")
    assert not result.changed
    assert any("QM109" == d.code for d in result.diagnostics)  # --unsafe still migrates it, checked


PARALLEL_READ_DTYPES = '''import tensorflow as tf
from tensorflow.contrib.slim.python.slim.data import parallel_reader


def numbers(pattern, batch_size, shuffle):
    _, value = parallel_reader.parallel_read(pattern, reader_class=tf.TFRecordReader, num_readers=2,
                                             shuffle=shuffle, dtypes={dtypes}, capacity=64,
                                             min_after_dequeue=32)
    example = tf.parse_single_example(value, {{'n': tf.FixedLenFeature([], tf.int64)}})
    return tf.train.batch([example['n']], batch_size)
'''


def test_parallel_reads_default_dtypes_written_out_are_the_default(tmp_path):
    """The object detection API's input reader passes `dtypes=[tf.string, tf.string]`, what
    parallel_read uses when given none; any other dtypes are refused as before."""
    for dtypes, migrates in (("[tf.string, tf.string]", True), ("(tf.string, tf.string)", True),
                             ("[tf.string, tf.int64]", False), ("[tf.string]", False), ("kinds", False)):
        path = tmp_path / "reader.py"
        path.write_text(PARALLEL_READ_DTYPES.format(dtypes=dtypes))
        result, = api.migrate([str(path)], jobs=1)
        assert result.changed is migrates, dtypes
        if not migrates:
            assert any("it sets `dtypes=` of the common queue" in d.message for d in result.remaining), dtypes
