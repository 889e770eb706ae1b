"""A script that builds its input at module level, in the arms of an `if` on a flag."""
import tensorflow as tf

FROM_FILES = True

if FROM_FILES:
    def parse_record(serialized):
        features = tf.parse_single_example(serialized, {'value': tf.FixedLenFeature([], tf.int64)})
        value = tf.cast(features['value'], tf.float32) * 2.0
        return value

    dataset = tf.data.Dataset.from_tensor_slices(['train-0.tfrecord', 'train-1.tfrecord'])
    dataset = dataset.shuffle(tf.size(['train-0.tfrecord', 'train-1.tfrecord'], out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(2)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(4))
    dataset = dataset.prefetch(1)
    values = dataset.make_one_shot_iterator().get_next()
else:
    values = tf.zeros([4])

with tf.Session() as sess:
    sess.run(tf.local_variables_initializer())
    print(sess.run(values))
