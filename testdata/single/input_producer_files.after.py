"""File names queued by the general tf.train.input_producer (string_input_producer's parent)."""
import tensorflow as tf

_FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


class ExampleReader(object):
    def __init__(self, files, is_training):
        self.files = files
        self.is_training = is_training

    def get_example(self, batch_size):
        num_epochs = None if self.is_training else 1
        dataset = tf.data.Dataset.from_tensor_slices(self.files)
        if self.is_training:
            dataset = dataset.shuffle(tf.size(self.files, out_type=tf.int64))
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
        dataset = dataset.repeat(num_epochs)
        serialized = dataset.make_one_shot_iterator().get_next()
        return tf.parse_single_example(serialized, _FEATURES)


def evaluation_batches(files, batch_size):
    def parse_record(serialized):
        example = tf.parse_single_example(serialized, _FEATURES)
        return example

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record)
    dataset_2 = dataset_2.repeat(1)
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return dataset_2.make_one_shot_iterator().get_next()
