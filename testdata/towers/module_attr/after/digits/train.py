"""Shuffled training batches; the package's codec is imported relatively, as a module."""
import tensorflow as tf

from . import codec


class TrainInput(object):

  def __init__(self, batch_size, epochs):
    self.batch_size = batch_size
    self.epochs = epochs

  def batches(self, files):
    """Shuffled batches of (image, label), `epochs` passes over the files."""
    with tf.name_scope('train_input'):
      def parse_record(serialized):
        image, label = codec.read_digit(serialized)
        return image, label

      dataset = tf.data.Dataset.from_tensor_slices(files)
      dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
      dataset = dataset.flat_map(tf.data.TFRecordDataset)
      dataset = dataset.map(parse_record, num_parallel_calls=2)
      dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(200, self.epochs))
      dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(self.batch_size))
      dataset = dataset.prefetch(1)
      return list(dataset.make_one_shot_iterator().get_next())
