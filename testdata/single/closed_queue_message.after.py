"""A unit test of an input function that checks how its queue ends: the last, partial batch is
not given, and the next run fails with the closed queue's message. After migration the data is
the same, but the iterator's message is "End of sequence": the expectation is reported (QM908)."""
import tensorflow as tf


def label_batches(files, batch_size):
    def parse_record(serialized):
        features = tf.parse_single_example(serialized, {'label': tf.FixedLenFeature([], tf.int64)})
        return features['label']

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(1)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return dataset.make_one_shot_iterator().get_next()


class LabelBatchesTest(tf.test.TestCase):

    def test_the_partial_batch_is_dropped(self):
        files = [self.get_temp_dir() + '/labels.tfrecord']
        labels = label_batches(files, batch_size=4)
        with self.test_session() as sess:
            sess.run(tf.local_variables_initializer())
            self.assertEqual(sess.run(labels).shape, (4,))
            with self.assertRaisesOpError(
                    'is closed and has insufficient elements '
                    r'\(requested 4, current size \d\)'):
                sess.run(labels)
