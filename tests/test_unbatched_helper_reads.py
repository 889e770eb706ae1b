"""A reader helper given the queue (`first = read_record(queue)`) whose records the rest of the
script uses one per step, with no batching (a look at the data, an evaluation one image at a
time, the test notebooks of tf-image-segmentation): the producer becomes a dataset, get_next()
gives the helper the record in the queue's place, and the helper takes the record, as it does
for a batched pipeline. Not where the records leave the block they are read in (an if/else arm
whose records a batching after it takes), where queue code that stays would read them."""
from qmigrate import api
from tfenv import dict_records, script_json, tf_python

SCRIPT = '''import json
import sys

import tensorflow as tf


def read_record(filename_queue):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    features = tf.parse_single_example(serialized, features={'id': tf.FixedLenFeature([], tf.int64)})
    return features['id']


files = sys.argv[1:]
queue = tf.train.string_input_producer(files, num_epochs=2, shuffle=False)
first = read_record(queue)
ids = []
with tf.Session() as sess:
    sess.run(tf.local_variables_initializer())
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    try:
        while True:
            ids.append(int(sess.run(first)))
    except tf.errors.OutOfRangeError:
        print(json.dumps(ids))
    coord.request_stop()
    coord.join(threads)
'''


def _migrated(tmp_path, text):
    path = tmp_path / "look.py"
    path.write_text(text)
    result, = api.migrate([str(path)])
    return result


def test_the_helper_takes_the_record_that_get_next_gives(tmp_path):
    result = _migrated(tmp_path, SCRIPT)
    assert result.changed and not result.remaining
    new = result.new_source.decode()
    assert "def read_record(serialized):" in new and "TFRecordReader" not in new
    assert ("dataset = dataset.repeat(2)\n"
            "serialized_2 = dataset.make_one_shot_iterator().get_next()\n"
            "first = read_record(serialized_2)\n") in new
    assert "start_queue_runners" not in new and "Coordinator" not in new


def test_records_that_a_batching_after_an_if_takes_stay(tmp_path):
    text = SCRIPT.replace("first = read_record(queue)\n", (
        "if len(files) > 1:\n"
        "    first = read_record(queue)\n"
        "else:\n"
        "    first = tf.constant(0, tf.int64)\n"
        "first = tf.train.batch([first], 1)[0]\n"))
    result = _migrated(tmp_path, text)
    assert not result.changed
    assert any(d.code == "QM101" for d in result.remaining)


def test_tf1_8_the_same_records_in_the_same_order_and_the_same_end(tmp_path):
    python = tf_python("1.8")
    files = dict_records(python, tmp_path / "data")
    before = tmp_path / "before.py"
    before.write_text(SCRIPT)
    after = tmp_path / "after.py"
    after.write_bytes(_migrated(tmp_path, SCRIPT).new_source)
    old, new = script_json(python, before, *files), script_json(python, after, *files)
    assert old == new == list(range(50)) * 2  # two epochs of the 50 ids, file after file, then the end
