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
    filename_queue = tf.train.string_input_producer(files, num_epochs=num_epochs, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    parsed = tf.parse_single_example(serialized, FEATURES)
    label = tf.cast(parsed['x'][0] > 24.5, tf.int32)
    x_batch, id_batch, label_batch = tf.train.batch(
        [parsed['x'], parsed['id'], label], batch_size=batch_size, num_threads=2)
    return {'x': x_batch, 'id': id_batch}, label_batch

  return train_input_fn


def train(files, model_dir, epochs=2):
  estimator = tf.contrib.learn.LinearClassifier(
      feature_columns=[tf.contrib.layers.real_valued_column('x', dimension=3)], model_dir=model_dir)
  estimator.fit(input_fn=make_input_fn(files, 10, num_epochs=epochs))
  return estimator
