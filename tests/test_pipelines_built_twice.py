"""A script (or a notebook) that builds a second pipeline under the same names
(`filename_queue = ...` again, the way a notebook's cells are run again with other files): each
producer's name is read by its own reader only, since the plain statement binding it again ends
what the first binding can be read by. Both pipelines migrate, each to its own dataset. A
statement that may read the name later (a lambda) keeps both as they are."""
from qmigrate import api
from tfenv import dict_records, script_json, tf_python

TWICE = '''import json
import sys

import tensorflow as tf


def read_record(filename_queue):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    return tf.parse_single_example(serialized, features={'id': tf.FixedLenFeature([], tf.int64)})['id']


filename_queue = tf.train.string_input_producer([sys.argv[1]], num_epochs=1)
example_id = read_record(filename_queue)
first = tf.train.batch([example_id], batch_size=5)
%s
filename_queue = tf.train.string_input_producer([sys.argv[2]], num_epochs=1)
example_id = read_record(filename_queue)
second = tf.train.batch([example_id], batch_size=5)

seen = {'first': [], 'second': []}
with tf.Session() as sess:
    sess.run(tf.local_variables_initializer())
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    for name, batch in (('first', first), ('second', second)):
        try:
            while True:
                seen[name] += [int(i) for i in sess.run(batch)]
        except tf.errors.OutOfRangeError:
            pass
    coord.request_stop()
print(json.dumps(seen))
'''


def _migrated(tmp_path, between=""):
    path = tmp_path / "twice.py"
    path.write_text(TWICE % between)
    result, = api.migrate([str(path)])
    return result


def test_each_pipeline_gets_its_own_dataset(tmp_path):
    result = _migrated(tmp_path)
    assert result.changed and not result.remaining
    new = result.new_source.decode()
    assert "tf.data.Dataset.from_tensor_slices([sys.argv[1]])" in new
    assert "tf.data.Dataset.from_tensor_slices([sys.argv[2]])" in new
    assert "first = dataset.make_one_shot_iterator().get_next()" in new
    assert "second = dataset_2.make_one_shot_iterator().get_next()" in new


def test_a_lambda_that_may_read_the_first_queue_later_keeps_them(tmp_path):
    result = _migrated(tmp_path, "files_of = lambda: filename_queue\n")
    assert not result.changed
    assert any("`filename_queue` is used beyond reader.read()" in d.message for d in result.remaining)


def test_tf1_8_each_pipeline_reads_its_own_file(tmp_path):
    python = tf_python("1.8")
    files = dict_records(python, tmp_path / "data")
    before = tmp_path / "before.py"
    before.write_text(TWICE % "")
    after = tmp_path / "after.py"
    after.write_bytes(_migrated(tmp_path).new_source)
    old, new = script_json(python, before, *files), script_json(python, after, *files)
    assert sorted(old["first"]) == sorted(new["first"]) == list(range(25))
    assert sorted(old["second"]) == sorted(new["second"]) == list(range(25, 50))


ON_SELF = '''import tensorflow as tf


class Feeder(object):
    def __init__(self, files):
        self.files = files
        self.queue = tf.train.string_input_producer(self.files)

    def batch(self):
        reader = tf.TFRecordReader()
        produced = reader.num_records_produced()
        _, value = reader.read(self.queue)
        batch = tf.train.batch([value], 4)
        return batch, produced
'''


def test_a_reader_read_before_its_read_keeps_the_chain_when_the_queue_is_on_the_object(tmp_path):
    """Each name is counted from its own binding: the reader's from the reader's statement, also
    when the queue is an attribute and only the reader's name is checked (counted from the
    producer's statement, `num_records_produced()` above the read went unseen, and the reader was
    removed from under it)."""
    path = tmp_path / "feeder.py"
    path.write_text(ON_SELF)
    result, = api.migrate([str(path)])
    assert not result.changed
    assert any("`reader` is used beyond reader.read()" in d.message for d in result.remaining)
