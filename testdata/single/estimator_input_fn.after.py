"""An Estimator trained from a queue-based input_fn (TF 1.4-era style)."""
import tensorflow as tf

FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def make_input_fn(files, batch_size, num_epochs=None):
  """Returns an input_fn for tf.estimator: features dict and labels."""

  def train_input_fn():
    def parse_record(serialized):
      parsed = tf.parse_single_example(serialized, FEATURES)
      label = tf.cast(parsed['x'][0] > 24.5, tf.int32)
      return parsed['x'], parsed['id'], label

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=2)
    dataset = dataset.repeat(num_epochs)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return dataset.map(lambda x_batch, id_batch, label_batch: ({'x': x_batch, 'id': id_batch}, label_batch))

  return train_input_fn


def train(files, model_dir, epochs=2):
  estimator = tf.estimator.LinearClassifier(
      feature_columns=[tf.feature_column.numeric_column('x', shape=[3])], model_dir=model_dir)
  estimator.train(input_fn=make_input_fn(files, 10, num_epochs=epochs))
  return estimator
