"""Sets of batches for several GPUs from one list file, one reader shared by every set.

Each line of the list file is `<example id> <label>`. The reader helper parses a line into a
record object; `train_sets` and `eval_sets` preprocess the record once per set and batch it
through `_batch_examples`, so every set's batch queue pulls lines from the one reader: each line
reaches exactly one set. The caller hands set i to GPU i.
"""
import tensorflow as tf

FEATURE_SIZE = 4


def read_line(list_path, shuffle=False):
  """Reads one line of the list file.

  Returns:
    An object with `example_id` (int32) and `label` (int32) tensors.
  """

  class LineRecord(object):
    pass
  record = LineRecord()

  # One line at a time from the list file.
  filename_queue = tf.train.string_input_producer([list_path], shuffle=shuffle)
  line_reader = tf.TextLineReader()
  _, line = line_reader.read(filename_queue)

  fields = tf.decode_csv(line, [[0], [0]], field_delim=' ')
  record.example_id = fields[0]
  record.label = fields[1]
  return record


def _features(example_id):
  return tf.fill([FEATURE_SIZE], tf.cast(example_id, tf.float32))


def _batch_examples(features, label, example_id, min_queue_examples, batch_size, shuffle=True,
                    num_threads=2):
  """Batches one example's tensors; shuffled for training."""
  if not shuffle:
    features_batch, label_batch, id_batch = tf.train.batch(
        [features, label, example_id],
        batch_size=batch_size,
        num_threads=num_threads,
        capacity=min_queue_examples + 3 * batch_size)
  else:
    features_batch, label_batch, id_batch = tf.train.shuffle_batch(
        [features, label, example_id],
        batch_size=batch_size,
        num_threads=num_threads,
        capacity=min_queue_examples + 3 * batch_size,
        min_after_dequeue=min_queue_examples)
  return features_batch, label_batch, id_batch


def train_sets(list_path, batch_size, shuffle=True, num_threads=2, num_sets=1):
  """Distorted training batches: one (features, labels, ids) set per GPU."""
  record = read_line(list_path, shuffle)

  features_list, labels_list, ids_list = [], [], []
  for i in range(num_sets):
    # Jitter the features.
    features = _features(record.example_id)
    features = features + tf.random_uniform([FEATURE_SIZE], maxval=0.1)

    min_queue_examples = batch_size * 4
    features_batch, label_batch, id_batch = _batch_examples(
        features, record.label, record.example_id, min_queue_examples, batch_size, shuffle, num_threads)
    features_list.append(features_batch)
    labels_list.append(label_batch)
    ids_list.append(id_batch)
  return features_list, labels_list, ids_list


def eval_sets(list_path, batch_size, shuffle=False, num_threads=2, num_sets=1, centred=False):
  """Evaluation batches in file order, centred on request."""
  record = read_line(list_path, shuffle)

  features_list, labels_list, ids_list = [], [], []
  for i in range(num_sets):
    features = _features(record.example_id)
    offset = 0.5
    if centred:
      features = features - offset
    else:
      features = features * 1.0

    min_queue_examples = batch_size * 4
    features_batch, label_batch, id_batch = _batch_examples(
        features, record.label, record.example_id, min_queue_examples, batch_size, shuffle, num_threads)
    features_list.append(features_batch)
    labels_list.append(label_batch)
    ids_list.append(id_batch)
  return features_list, labels_list, ids_list
