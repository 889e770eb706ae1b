"""A unit test of an input function that checks how its queue ends: the last, partial batch is
not given, and the next run fails with the closed queue's message. After migration the data is
the same, but the iterator's message is "End of sequence": the expectation is reported (QM908)."""
import tensorflow as tf


def label_batches(files, batch_size):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    features = tf.parse_single_example(serialized, {'label': tf.FixedLenFeature([], tf.int64)})
    return tf.train.batch([features['label']], batch_size=batch_size)


class LabelBatchesTest(tf.test.TestCase):

    def test_the_partial_batch_is_dropped(self):
        files = [self.get_temp_dir() + '/labels.tfrecord']
        labels = label_batches(files, batch_size=4)
        with self.test_session() as sess:
            sess.run(tf.local_variables_initializer())
            with tf.contrib.slim.queues.QueueRunners(sess):
                self.assertEqual(sess.run(labels).shape, (4,))
                with self.assertRaisesOpError(
                        'is closed and has insufficient elements '
                        r'\(requested 4, current size \d\)'):
                    sess.run(labels)
