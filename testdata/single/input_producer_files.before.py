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
    path_queue = tf.train.input_producer(files, num_epochs=1, shuffle=False, capacity=batch_size)
    _, serialized = tf.TFRecordReader().read(path_queue)
    example = tf.parse_single_example(serialized, _FEATURES)
    return tf.train.batch(example, batch_size, allow_smaller_final_batch=True)
