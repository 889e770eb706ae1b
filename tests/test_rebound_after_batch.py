"""A per-record name bound again after the batching, inside a loop or a `with` block, and read
there after its new binding, reads that binding, not the record: it no longer keeps the pipeline
("also used outside the record path" refused an evaluation script that reuses the name for the
numpy values it fetched, found on a repository outside the corpus). A read before the new binding
in the same block (the first pass of a loop) still reads the record and still keeps it
(recognise._rebound_loads)."""
from qmigrate import api

EVALUATE = '''import tensorflow as tf


def evaluate(image_files, mask_files, batch_size):
    pair = tf.train.slice_input_producer([tf.constant(image_files), tf.constant(mask_files)], shuffle=False)
    image = tf.image.decode_png(tf.read_file(pair[0]), channels=1)
    mask = tf.image.decode_png(tf.read_file(pair[1]), channels=1)
    mask = tf.image.resize_images(mask, [8, 8])
    images, masks = tf.train.batch([image, mask], batch_size=batch_size, shapes=[[8, 8, 1], [8, 8, 1]])
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        fetched = sess.run(masks)
%s
        coord.request_stop()
        coord.join(threads)
'''

REBOUND = '''        for index in range(len(fetched)):
            mask = fetched[index]
            print(mask.sum())'''

LOOP_TARGET = '''        for mask in fetched:
            print(mask.sum())'''

READ_FIRST = '''        for index in range(len(fetched)):
            print(mask)
            mask = fetched[index]'''


def _migrate(tmp_path, body):
    path = tmp_path / "evaluate.py"
    path.write_text(EVALUATE % body)
    result, = api.migrate([str(path)], jobs=1)
    return result


def test_a_name_bound_again_in_a_loop_and_read_after_does_not_keep_the_pipeline(tmp_path):
    for body in (REBOUND, LOOP_TARGET):
        result = _migrate(tmp_path, body)
        assert result.changed, [d.message for d in result.remaining]
        assert b"tf.train.batch" not in result.new_source
        assert b"print(mask.sum())" in result.new_source


def test_a_read_before_the_new_binding_still_keeps_it(tmp_path):
    result = _migrate(tmp_path, READ_FIRST)
    assert not result.changed
    assert any("`mask` is also used outside the record path" in d.message for d in result.remaining)


# A module-level script that used the record's name for something else before the chain (a
# tf.train.Example it wrote): the module's body runs once, as a function's does, so those loads
# read the earlier binding (recognise._straight_body).
SCRIPT = '''import tensorflow as tf

writer = tf.python_io.TFRecordWriter('numbers.tfrecords')
for number in range(4):
    example = tf.train.Example(features=tf.train.Features(feature={
        'n': tf.train.Feature(int64_list=tf.train.Int64List(value=[number]))}))
    writer.write(example.SerializeToString())
writer.close()
%s
queue = tf.train.string_input_producer(['numbers.tfrecords'], shuffle=False)
_, serialized = tf.TFRecordReader().read(queue)
example = tf.parse_single_example(serialized, {'n': tf.FixedLenFeature([], tf.int64)})['n']
batch = tf.train.batch([example], batch_size=2)
'''


def test_a_module_level_name_used_for_something_else_before_the_chain_does_not_keep_it(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(SCRIPT % "")
    result, = api.migrate([str(path)], jobs=1)
    assert result.changed, [d.message for d in result.remaining]
    assert b"writer.write(example.SerializeToString())" in result.new_source


def test_a_function_defined_before_it_that_reads_the_name_still_keeps_it(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(SCRIPT % "\n\ndef show():\n    print(example)\n\n")
    result, = api.migrate([str(path)], jobs=1)
    assert not result.changed
