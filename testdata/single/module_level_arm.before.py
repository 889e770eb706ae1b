"""A script that builds its input at module level, in the arms of an `if` on a flag."""
import tensorflow as tf

FROM_FILES = True

if FROM_FILES:
    file_queue = tf.train.string_input_producer(['train-0.tfrecord', 'train-1.tfrecord'], num_epochs=2)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(file_queue)
    features = tf.parse_single_example(serialized, {'value': tf.FixedLenFeature([], tf.int64)})
    value = tf.cast(features['value'], tf.float32) * 2.0
    values = tf.train.batch([value], batch_size=4)
else:
    values = tf.zeros([4])

with tf.Session() as sess:
    sess.run(tf.local_variables_initializer())
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    print(sess.run(values))
    coord.request_stop()
    coord.join(threads)
