"""A `*_join`'s copies of the per-record code that read the loop's variable (joins.RecordLoop.
thread_var, synth._thread_copies): the map function takes the variable last, and a chooser runs
copy i % n for record i. (TF behaviour: tests/test_tf_behaviour.py, thread_copies.)"""
import pytest

from qmigrate import api

SHAPE = '''import tensorflow as tf


def inputs(files, batch_size, n=4):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    {read}
    rows = []
    for {variable} in range(n):
        image = tf.image.decode_png(value)
        image = tf.image.resize_images(image, [8, 8], method={variable} % 4)
        rows.append([image{extra}])
    {after}return tf.train.batch_join(rows, batch_size=batch_size)
'''


def _migrated(tmp_path, variable="thread_id", read="_, value = tf.WholeFileReader().read(queue)", extra="",
              after=""):
    path = tmp_path / "inputs.py"
    path.write_text(SHAPE.format(variable=variable, read=read, extra=extra, after=after))
    result, = api.migrate([str(path)], jobs=1)
    return result


def test_each_copy_is_chosen_by_the_records_turn(tmp_path):
    result = _migrated(tmp_path)
    new = result.new_source.decode()
    assert "batch_join" not in new and not [d for d in result.diagnostics if not d.fixed]
    assert "    def parse_record(value, thread_id):\n" in new
    assert "    dataset = tf.data.Dataset.zip((tf.data.Dataset.range(n).repeat(), dataset))\n" in new
    assert ("    def parse_record_of_thread(copy, value):\n"
            "        # Each of the join's threads ran its own copy of the per-record code (`thread_id` told them\n"
            "        # apart) on the records it took: record i goes through copy i % n.\n"
            "        return tf.case([(tf.equal(copy, thread_id),\n"
            "                          lambda thread_id=thread_id: parse_record(value, thread_id))\n"
            "                         for thread_id in range(n)])\n"
            "\n"
            "    dataset = dataset.map(parse_record_of_thread, num_parallel_calls=n)\n") in new


def test_the_copy_number_takes_a_name_the_records_do_not_use(tmp_path):
    new = _migrated(tmp_path, variable="copy").new_source.decode()
    assert "    def parse_record_of_thread(copy_index, value):\n" in new
    assert "tf.equal(copy_index, copy)" in new


def test_a_read_key_is_passed_on_before_the_copy_number(tmp_path):
    new = _migrated(tmp_path, read="key, value = tf.WholeFileReader().read(queue)",
                    extra=", key").new_source.decode()
    assert "    def parse_record(key, value, thread_id):\n" in new
    assert "    def parse_record_of_thread(copy, key, value):\n" in new
    assert "lambda thread_id=thread_id: parse_record(key, value, thread_id))" in new


@pytest.mark.parametrize("after,reason", [
    ("print(thread_id)\n    ", "the loop's variable `thread_id`, which its copies of the per-record code read, "
                               "is also read outside the loop"),
])
def test_a_variable_read_after_the_loop_keeps_the_join(tmp_path, after, reason):
    result = _migrated(tmp_path, after=after)
    assert not result.changed
    found, = [d for d in result.diagnostics if d.code == "QM303"]
    assert reason in found.message
