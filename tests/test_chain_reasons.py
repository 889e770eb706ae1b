"""A chain refused at its batching gives its producer and reader the batching's reason: they said
"its records are not batched by tf.train.batch/shuffle_batch in the same block", which is false
there (found outside the corpus, with a per-record tensor read after the batch)."""
from qmigrate import api

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
