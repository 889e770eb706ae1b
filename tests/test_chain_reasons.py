"""A chain refused at its batching gives its producer and reader the batching's reason: they said
"its records are not batched by tf.train.batch/shuffle_batch in the same block", which is false
there (found outside the corpus, with a per-record tensor read after the batch)."""
import pathlib

import pytest

from qmigrate import api, engine, unlinked
from tests.conftest import TESTDATA

PROGRAM = '''import tensorflow as tf


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files, shuffle=False)
    _, value = tf.WholeFileReader().read(queue)
    image = tf.cast(tf.image.decode_png(value, channels=3), tf.float32)
    batch = tf.train.batch([image], batch_size=batch_size)
    print('channels', image.get_shape()[-1])
    return batch


def main(files):
    batch = inputs(files, 4)
    with tf.Session() as sess:
        print(sess.run(batch).shape)
'''


def test_producer_and_reader_say_why_the_batching_stays(tmp_path):
    path = tmp_path / "inputs.py"
    path.write_text(PROGRAM)
    result, = api.migrate([str(path)], jobs=1)
    reasons = {d.code: d.message for d in result.remaining}
    assert set(reasons) == {"QM101", "QM204", "QM301"}
    for code in reasons:
        assert "not rewritten: the per-record tensor `image` is also used outside the record path" in reasons[code]


def test_a_call_no_explainer_speaks_of_builds_none(monkeypatch):
    """The tower loop's prefetch_queue (QM401) left for its link: Explainer explains a prefetch
    queue only by a batching of its module that stays, and this module has none, so it is not
    built to be asked about it."""
    path = pathlib.Path(TESTDATA) / "towers" / "tutorial" / "before" / "cifar10_multi_gpu_train.py"
    expected = engine.analyse(str(path), path.read_bytes(), engine.Options()).result()
    monkeypatch.setattr(unlinked, "Explainer", lambda *a, **k: pytest.fail("an Explainer was built"))
    result = engine.analyse(str(path), path.read_bytes(), engine.Options()).result()
    assert result == expected and "QM401" in {d.code for d in result.diagnostics if not d.fixed}
    assert not unlinked.explains("QM501") and unlinked.explains("QM302")


def test_tensors_an_other_method_keeps_on_the_object_are_said_to_be_kept_there(tmp_path):
    # Found outside the corpus (image readers that read in __init__ and batch in dequeue()): the
    # reason said they "come in as `self`, a parameter", and to list `[self, ...]` in the batching.
    path = tmp_path / "reader.py"
    path.write_text('''import tensorflow as tf


class Reader(object):
    def __init__(self, files):
        self.queue = tf.train.string_input_producer(files)
        self.image = tf.image.decode_png(tf.read_file(self.queue.dequeue()))

    def dequeue(self, n):
        return tf.train.batch([self.image], n)
''')
    result, = api.migrate([str(path)], jobs=1)
    [message] = [d.message for d in result.remaining if d.code == "QM301"]
    # (held_records follows the records from __init__ to dequeue(); this queue is dequeued
    # directly, which no chain takes, and it says so)
    assert "its records are made in __init__() and batched by dequeue()" in message
    assert "a parameter" not in message


def test_records_a_comprehension_makes_by_a_call_are_said_to_come_from_that_call(tmp_path):
    # Found outside the corpus (video-classification readers): the reason blamed `num_readers`, the
    # parameter the comprehension's range reads, as where the tensors came in.
    path = tmp_path / "inputs.py"
    path.write_text('''import tensorflow as tf


def parse(queue):
    _, serialized = tf.TFRecordReader().read_up_to(queue, 3)
    return {"id": tf.parse_example(serialized, {"id": tf.FixedLenFeature([], tf.int64)})["id"]}


def inputs(files, batch_size, num_readers=2):
    queue = tf.train.string_input_producer(files)
    parsed = [parse(queue) for _ in range(num_readers)]
    return tf.train.batch_join(parsed, batch_size, enqueue_many=True)
''')
    result, = api.migrate([str(path)], jobs=1)
    [message] = [d.message for d in result.remaining if d.code == "QM303"]
    assert "the tensors it batches come from parse() (line 11)" in message
    assert "num_readers" not in message


def test_records_an_attribute_of_a_call_gives_come_from_that_call_not_the_producers_file_names(tmp_path):
    # Found outside the corpus (openai/iaf's CIFAR input): the reason blamed `os.path.join()`, which
    # makes the file names the producer is given, as where the batched images came from.
    path = tmp_path / "inputs.py"
    path.write_text('''import os
import tensorflow as tf


def read_record(filename_queue):
    class Record(object):
        pass
    result = Record()
    result.key, value = tf.FixedLengthRecordReader(record_bytes=8).read(filename_queue)
    result.image = tf.decode_raw(value, tf.uint8)
    return result


def inputs(data_dir, batch_size):
    filenames = [os.path.join(data_dir, "batch_%d.bin" % i) for i in range(1, 6)]
    filename_queue = tf.train.string_input_producer(filenames)
    images = [read_record(filename_queue).image for _ in range(5)]
    return tf.train.shuffle_batch_join([images], batch_size, capacity=200, min_after_dequeue=100)[0]
''')
    result, = api.migrate([str(path)], jobs=1)
    [message] = [d.message for d in result.remaining if d.code == "QM304"]
    assert "the tensors it batches come from read_record() (line 17)" in message
    assert "os.path.join" not in message


@pytest.mark.parametrize("arguments,padded,dropped", [
    ("dynamic_pad=True", True, True),
    ("dynamic_pad=True, allow_smaller_final_batch=True", True, False),
    ("", False, True),
])
def test_a_batching_left_says_to_pad_and_to_drop_the_last_batch_as_it_did(arguments, padded, dropped, tmp_path):
    # Found outside the corpus: the to-do said `.batch(n)`, which fails on records of different
    # shapes (dynamic_pad) and keeps the last partial batch that the queue dropped.
    path = tmp_path / "reader.py"
    path.write_text('''import tensorflow as tf


class Reader(object):
    def __init__(self, files):
        queue = tf.train.string_input_producer(files)
        self.words = tf.string_split([tf.read_file(queue.dequeue())]).values

    def batches(self, n):
        return tf.train.batch([self.words], n, %s)
''' % arguments)
    result, = api.migrate([str(path)], jobs=1)
    [message] = [d.message for d in result.remaining if d.code == "QM301"]
    assert ("padded_batch(n, padded_shapes)" in message) == padded
    assert ("drop the last partial batch" in message) == dropped


def test_records_batched_twice_say_so_at_both_batchings(tmp_path):
    # Found outside the corpus (a train and a test batch of one reader): the first batching said
    # its tensor was "used outside the record path", the second that it was "not part of a chain".
    path = tmp_path / "inputs.py"
    path.write_text('''import tensorflow as tf


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files)
    _, value = tf.WholeFileReader().read(queue)
    image = tf.to_float(tf.image.decode_png(value, channels=1))
    train = tf.train.shuffle_batch([image], batch_size, 40, 5)
    test = tf.train.batch([image], batch_size)
    return train, test
''')
    result, = api.migrate([str(path)], jobs=1)
    reasons = {d.code: d.message for d in result.remaining}
    for code in ("QM101", "QM204", "QM301", "QM302"):
        assert "the records are batched twice, at lines 8 and 9 (`image` goes to both)" in reasons[code]


READER_FACTORY = '''import tensorflow as tf
from trainer import input_maker


def gzip_reader():
    return tf.TFRecordReader(options=tf.python_io.TFRecordOptions(
        compression_type=tf.python_io.TFRecordCompressionType.GZIP))


def input_fn(pattern, batch_size):
    return input_maker.build_input_fn(pattern, batch_size, reader=gzip_reader)
'''


@pytest.mark.parametrize("handed", (True, False))
def test_a_reader_returned_by_its_function_says_who_it_is_for(tmp_path, handed):
    """A reader factory handed to another library's input function (tf.Transform's input_fn_maker)
    reads there, through that library's queues: said, instead of 'not part of a chain'."""
    text = READER_FACTORY if handed else READER_FACTORY.split("\n\n\ndef input_fn")[0] + "\n"
    path = tmp_path / "task.py"
    path.write_text(text)
    result, = api.migrate([str(path)], jobs=1)
    [message] = [d.message for d in result.remaining]
    assert "the reader is returned (line 6) by gzip_reader(), which makes readers for its callers" in message
    if handed:
        assert "gzip_reader is handed to input_maker.build_input_fn() (line 11)" in message
    else:
        assert "qmigrate follows a reader where it reads" in message


def test_tensors_rebound_in_the_other_arm_are_not_said_to_come_from_it(tmp_path):
    # Found in a corpus library (shuffle_batch in one arm, batch in the other, both of the
    # function's parameters): the batch arm's reason named `batch_size` as where its tensors came
    # in, through the other arm's `x, y = shuffle_batch([x, y], batch_size=batch_size, ...)`.
    path = tmp_path / "flow.py"
    path.write_text('''import tensorflow as tf


def batched(x, y, batch_size, shuffle=True):
    if shuffle:
        x, y = tf.train.shuffle_batch([x, y], batch_size=batch_size, capacity=64, min_after_dequeue=16)
    else:
        x, y = tf.train.batch([x, y], batch_size=batch_size)
    return x, y
''')
    result, = api.migrate([str(path)], jobs=1)
    messages = {d.code: d.message for d in result.remaining}
    for code in ("QM301", "QM302"):
        assert "the tensors it batches come in as `x`, a parameter of batched()" in messages[code]


def test_a_binding_in_the_other_arm_inside_a_loop_is_where_later_runs_take_them(tmp_path):
    # Inside a loop one arm runs after the other: a later iteration's batch reads what the other
    # arm bound (as blocks.exclusive_loads has it), so that binding is where the tensors come from.
    path = tmp_path / "flow.py"
    path.write_text('''import tensorflow as tf


def batched(x, y, files, batch_size, steps):
    batches = []
    for step in range(steps):
        if step % 2:
            x, y = load_pair(files)
        else:
            batches.append(tf.train.batch([x, y], batch_size=batch_size))
    return batches


def load_pair(files):
    return files[0], files[1]
''')
    result, = api.migrate([str(path)], jobs=1)
    [message] = [d.message for d in result.remaining if d.code == "QM301"]
    assert "the tensors it batches come from load_pair() (line 8)" in message


TOWERS = '''import tensorflow as tf
slim = tf.contrib.slim


def tower_batches(files, batch_size, num_clones):
    queue = tf.train.string_input_producer(files)
    _, value = tf.TFRecordReader().read(queue)
    image = tf.decode_raw(value, tf.uint8)
    tf.summary.histogram('pixels', image)
    images, labels = tf.train.batch([image, tf.size(image)], batch_size=batch_size)
    labels = slim.one_hot_encoding(labels, 10)
    return slim.prefetch_queue.prefetch_queue([images, labels], capacity=2 * num_clones)
'''


def test_a_prefetch_queue_names_the_batching_its_batches_come_from(tmp_path):
    """Through what transforms the batch (`labels = one_hot(labels)`) back to the batching, which
    says why it stays; the prefetch queue said it was "not part of a chain"."""
    path = tmp_path / "towers.py"
    path.write_text(TOWERS)
    result, = api.migrate([str(path)], jobs=1)
    reasons = {d.code: d.message.split("not rewritten: ")[1].split("; to do:")[0] for d in result.remaining
               if "not rewritten: " in d.message}  # (QM910 names the summary, a finding of its own)
    assert reasons["QM401"] == ("the batches it holds come from `tf.train.batch(...)` (line 10), which stays as it "
                                "is, for the reason given there; the prefetch queue migrates with that batching")
    assert "tf.summary.histogram" in reasons["QM301"]


def test_records_tensorflow_ops_alone_make_are_said_to_be_made_so(tmp_path):
    # No reader: a py_func and a random op made every record the runner enqueued (a helper's probe
    # was told of a pipeline split across functions).
    path = tmp_path / "synthetic.py"
    path.write_text("import numpy as np\nimport tensorflow as tf\n\n\ndef inputs(batch_size):\n"
                    "    x = tf.py_func(lambda: np.zeros([1], np.int64), [], tf.int64)\n"
                    "    noise = tf.random_uniform([2])\n"
                    "    return tf.train.shuffle_batch([x, noise], batch_size, 20, 5)\n")
    result, = api.migrate([str(path)])
    found, = [d for d in result.remaining if d.code == "QM302"]
    assert "made by TensorFlow ops alone, no reader (from line 6)" in found.message


def test_records_of_a_name_nothing_binds_are_not_said_to_be_made_by_tensorflow_alone(tmp_path):
    # Broken code (a name bound nowhere) is no generator of records.
    path = tmp_path / "broken.py"
    path.write_text("import tensorflow as tf\n\n\ndef inputs(batch_size):\n"
                    "    x = tf.parse_example(serialized_examples, {})\n"
                    "    return tf.train.shuffle_batch([x], batch_size, 20, 5)\n")
    result, = api.migrate([str(path)])
    found, = [d for d in result.remaining if d.code == "QM302"]
    assert "made by TensorFlow ops alone" not in found.message


def test_records_come_from_the_call_that_makes_them_not_from_its_options(tmp_path):
    # `width` (from a config, before) is an option of load(), which makes the records: a helper's
    # review was told they come from config.get().
    path = tmp_path / "configured.py"
    path.write_text("import configparser\nimport tensorflow as tf\n\nconfig = configparser.ConfigParser()\n\n\n"
                    "def load(paths, width):\n"
                    "    _, ser = tf.TFRecordReader().read(tf.train.string_input_producer(paths))\n"
                    "    return tf.fill([width], tf.string_to_number(ser)), (ser,)\n\n\n"
                    "def main(paths):\n"
                    "    model = config.get('config', 'model')\n"
                    "    width = config.getint(model, 'width')\n"
                    "    image, labels = load(paths, width)\n"
                    "    return tf.train.shuffle_batch((image,) + labels, 4, 20, 10)\n")
    result, = api.migrate([str(path)])
    found, = [d for d in result.remaining if d.code == "QM302"]
    assert "the tensors it batches come from load() (line 15)" in found.message


def test_records_of_a_loop_of_readers_come_from_the_call_not_from_the_count(tmp_path):
    # `[...prepare(queue) for _ in range(num_readers)]`: a helper's review was told the tensors come
    # in as `num_readers`, the parameter the loop counts with.
    (tmp_path / "readers.py").write_text(
        "import tensorflow as tf\n\n\nclass Single(object):\n"
        "    def prepare(self, queue):\n"
        "        _, value = tf.TFRecordReader().read(queue)\n"
        "        return (tf.expand_dims(value, 0),)\n")
    (tmp_path / "train.py").write_text(
        "import tensorflow as tf\nimport readers\n\n\n"
        "def inputs(files, num_readers=2):\n"
        "    queue = tf.train.string_input_producer(files)\n"
        "    data = [readers.Single().prepare(queue) for _ in range(num_readers)]\n"
        "    return tf.train.batch_join(data, 4, enqueue_many=True)\n")
    results = {pathlib.Path(r.path).name: r for r in api.migrate([str(tmp_path)])}
    found, = [d for d in results["train.py"].remaining if d.code == "QM303"]
    assert "come from readers.Single(...).prepare() (line 7)" in found.message
    assert "num_readers" not in found.message


MUTATED = '''import tensorflow as tf


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files, shuffle=False)
    _, value = tf.TFRecordReader().read(queue)
    spec = {'id': tf.FixedLenFeature([], tf.int64)}
    parsed = tf.parse_single_example(value, spec)
    %s
    batch = tf.train.batch([parsed['id']], batch_size=batch_size)
    return batch, spec
'''


@pytest.mark.parametrize("change", ["spec['weight'] = tf.FixedLenFeature([], tf.float32)",
                                    "spec.update(weight=tf.FixedLenFeature([], tf.float32))",
                                    "add_serving_features(spec)",
                                    "del spec['id']",
                                    "spec.fill_in(tf.float32)"])  # any method not known to only read
def test_an_outer_object_the_per_record_code_reads_changed_in_place_after_it_stays(tmp_path, change):
    # The map function is made where the batch is: it would parse with the changed spec (TF 1.8:
    # "Feature: weight ... is required but could not be found"), where the queue's ops were built
    # with the spec as it was.
    path = tmp_path / "inputs.py"
    path.write_text(MUTATED % change)
    result, = api.migrate([str(path)])
    assert not result.changed
    found, = [d for d in result.remaining if d.code == "QM301"]
    assert "reads `spec`, which line 9 changes in place after it" in found.message


@pytest.mark.parametrize("statement", ["print(len(spec), spec)",
                                       # None, which the per-record code reads too, is no object to change
                                       # (hmr's `self.read_data(queue, has_3d=False)`)
                                       "report(tf.constant(0), name=None)",
                                       # a string made from a name the per-record code reads
                                       "tag = 'batch_{}'.format(spec.get('id'))",
                                       # a name it reads, handed to a function, that is no container made here
                                       "log_value(tf)"])
def test_reading_it_after_the_per_record_code_changes_nothing(tmp_path, statement):
    path = tmp_path / "inputs.py"
    path.write_text((MUTATED % statement).replace("tf.parse_single_example(value, spec)",
                                                  "tf.parse_single_example(value, spec, name=None)"))
    result, = api.migrate([str(path)])
    assert result.changed and not result.remaining


SHADOWED = '''import tensorflow as tf

keep_prob = tf.placeholder_with_default(1.0, [])


def batches(files, keep_prob=0.5):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, value = tf.TFRecordReader().read(queue)
    x = tf.parse_single_example(value, {'x': tf.FixedLenFeature([3], tf.float32)})['x'] * keep_prob
    %s
    batch = tf.train.batch([x], batch_size=4)
    return batch
'''


def test_a_parameter_is_not_the_module_level_variable_it_shadows(tmp_path):
    path = tmp_path / "inputs.py"
    path.write_text(SHADOWED % "pass")
    result, = api.migrate([str(path)])
    assert result.changed and not result.remaining


@pytest.mark.parametrize("statement", ["self_like.capacity = 100", "self_like.load_more()"])
def test_an_attribute_the_per_record_code_does_not_read_may_be_set(tmp_path, statement):
    # `self.capacity = ...` between the per-record code and the batch changes nothing it reads, and
    # a method called on an object it reads only through an attribute (`self.read(...)`, zipped
    # arms' shape) is taken for no change of it.
    source = (MUTATED % statement).replace("def inputs(files, batch_size):",
                                                            "def inputs(files, batch_size, self_like=None):")
    source = source.replace("tf.parse_single_example(value, spec)",
                            "tf.parse_single_example(value, spec, name=self_like.name)")
    path = tmp_path / "inputs.py"
    path.write_text(source)
    result, = api.migrate([str(path)])
    assert result.changed and not result.remaining
