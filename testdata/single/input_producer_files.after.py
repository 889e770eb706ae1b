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
        reader = tf.TFRecordReader()
        num_epochs = None if self.is_training else 1
        path_queue = tf.train.input_producer(self.files, num_epochs=num_epochs, shuffle=self.is_training,
                                             capacity=batch_size)
        _, serialized = reader.read(path_queue)
        return tf.parse_single_example(serialized, _FEATURES)


def evaluation_batches(files, batch_size):
    def parse_record(serialized):
        example = tf.parse_single_example(serialized, _FEATURES)
        return example

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(1)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return dataset.make_one_shot_iterator().get_next()
