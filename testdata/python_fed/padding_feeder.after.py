"""A speech-style data feeder: variable-length examples made in Python, padded per batch by a
PaddingFIFOQueue that a background thread fills through placeholders."""

import numpy as np
import tensorflow as tf


class DataFeeder(object):
    """Loads (frames, id) examples in Python and feeds them to the model in padded batches."""

    def __init__(self, lengths, batch_size, num_features=3):
        self.lengths = lengths
        self.num_features = num_features
        self.threads = []
        dataset = tf.data.Dataset.from_generator(self.thread_main, output_types=(tf.float32, tf.int64), output_shapes=([None, num_features], []))
        dataset = dataset.prefetch(32)
        dataset = dataset.apply(tf.contrib.data.padded_batch_and_drop_remainder(batch_size, dataset.output_shapes))
        self.inputs, self.ids = dataset.make_one_shot_iterator().get_next()

    def _load(self, index):
        """The example `index`: `lengths[index]` frames whose values encode the id and the frame."""
        length = self.lengths[index]
        frames = np.arange(length * self.num_features, dtype=np.float32).reshape(length, self.num_features)
        return frames + 1000.0 * index, index

    def thread_main(self):
        for index in range(len(self.lengths)):
            frames, example_id = self._load(index)
            yield frames, example_id

    def start_threads(self, sess):
        return self.threads
