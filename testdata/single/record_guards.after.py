"""Per-record checks under a control dependency (asserts guard what is batched), shuffled batches."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def guarded_inputs(files, batch_size, max_id=1000):
    def parse_record(example):
        parsed = tf.parse_single_example(example, _FEATURES)
        x = parsed['x']
        in_range = tf.assert_less(parsed['id'], tf.constant(max_id, tf.int64), message='example id out of range')
        finite = tf.assert_equal(tf.reduce_all(tf.is_finite(x)), True)
        with tf.control_dependencies([in_range, finite]):
            x = tf.identity(x)
            example_id = tf.identity(parsed['id'])
        return x, example_id

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(10, 1))
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())
