"""An input_fn for tf.contrib.learn's Estimator, which unpacks `features, labels = input_fn()`:
migrated, it keeps returning tensors (the one-shot iterator's next batch), which every Estimator
takes, where a Dataset would break it."""
import tensorflow as tf

FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def make_input_fn(files, batch_size, num_epochs=None):
  """Returns an input_fn for tf.contrib.learn: features dict and labels."""

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
    x_batch, id_batch, label_batch = dataset.make_one_shot_iterator().get_next()
    return {'x': x_batch, 'id': id_batch}, label_batch

  return train_input_fn


def train(files, model_dir, epochs=2):
  estimator = tf.contrib.learn.LinearClassifier(
      feature_columns=[tf.contrib.layers.real_valued_column('x', dimension=3)], model_dir=model_dir)
  estimator.fit(input_fn=make_input_fn(files, 10, num_epochs=epochs))
  return estimator
