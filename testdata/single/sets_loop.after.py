"""Sets of batches for several GPUs from one list file, one reader shared by every set.

Each line of the list file is `<example id> <label>`. The reader helper parses a line into a
record object; `train_sets` and `eval_sets` preprocess the record once per set and batch it
through `_batch_examples`, so every set's batch queue pulls lines from the one reader: each line
reaches exactly one set. The caller hands set i to GPU i.
"""
import tensorflow as tf
import random

# One seed for the whole process, so that every shard shuffles the files the same way.
_FILE_ORDER_SEED = random.randint(0, 2 ** 31 - 1)

FEATURE_SIZE = 4


def read_line(line):
  """Reads one line of the list file.

  Returns:
    An object with `example_id` (int32) and `label` (int32) tensors.
  """

  class LineRecord(object):
    pass
  record = LineRecord()

  fields = tf.decode_csv(line, [[0], [0]], field_delim=' ')
  record.example_id = fields[0]
  record.label = fields[1]
  return record


def _features(example_id):
  return tf.fill([FEATURE_SIZE], tf.cast(example_id, tf.float32))


def _batch_examples(features_batch, label_batch, id_batch, min_queue_examples, batch_size, shuffle=True,
                    num_threads=2):
  """Batches one example's tensors; shuffled for training."""
  return features_batch, label_batch, id_batch


def train_sets(list_path, batch_size, shuffle=True, num_threads=2, num_sets=1):
  """Distorted training batches: one (features, labels, ids) set per GPU."""
  def parse_record(line):
    record = read_line(line)
    # Jitter the features.
    features = _features(record.example_id)
    features = features + tf.random_uniform([FEATURE_SIZE], maxval=0.1)
    return features, record.label, record.example_id

  features_list, labels_list, ids_list = [], [], []
  for i in range(num_sets):
    min_queue_examples = batch_size * 4
    dataset = tf.data.Dataset.from_tensor_slices([list_path])
    if shuffle:
      dataset = dataset.shuffle(tf.size([list_path], out_type=tf.int64), seed=_FILE_ORDER_SEED)
    dataset = dataset.flat_map(tf.data.TextLineDataset)
    # Each tower's shard: blocks of 64 records, before the per-record work.
    dataset = dataset.batch(64)
    dataset = dataset.shard(num_sets, i)
    dataset = dataset.apply(tf.contrib.data.unbatch())
    dataset = dataset.map(parse_record, num_parallel_calls=num_threads)
    if shuffle:
      dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(min_queue_examples or min_queue_examples + 3 * batch_size))
    else:
      dataset = dataset.repeat()
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    features_batch_2, label_batch_2, id_batch_2 = dataset.make_one_shot_iterator().get_next()
    features_batch, label_batch, id_batch = _batch_examples(
        features_batch_2, label_batch_2, id_batch_2, min_queue_examples, batch_size, shuffle, num_threads)
    features_list.append(features_batch)
    labels_list.append(label_batch)
    ids_list.append(id_batch)
  return features_list, labels_list, ids_list


def eval_sets(list_path, batch_size, shuffle=False, num_threads=2, num_sets=1, centred=False):
  """Evaluation batches in file order, centred on request."""
  def parse_record_2(line):
    record = read_line(line)
    features = _features(record.example_id)
    if centred:
      features = features - offset
    else:
      features = features * 1.0
    return features, record.label, record.example_id

  features_list, labels_list, ids_list = [], [], []
  for i in range(num_sets):
    offset = 0.5

    min_queue_examples = batch_size * 4
    dataset_2 = tf.data.Dataset.from_tensor_slices([list_path])
    if shuffle:
      dataset_2 = dataset_2.shuffle(tf.size([list_path], out_type=tf.int64), seed=_FILE_ORDER_SEED)
    dataset_2 = dataset_2.flat_map(tf.data.TextLineDataset)
    # Each tower's shard: blocks of 64 records, before the per-record work.
    dataset_2 = dataset_2.batch(64)
    dataset_2 = dataset_2.shard(num_sets, i)
    dataset_2 = dataset_2.apply(tf.contrib.data.unbatch())
    dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=num_threads)
    if shuffle:
      dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(min_queue_examples or min_queue_examples + 3 * batch_size))
    else:
      dataset_2 = dataset_2.repeat()
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_2 = dataset_2.prefetch(1)
    features_batch_2, label_batch_2, id_batch_2 = dataset_2.make_one_shot_iterator().get_next()
    features_batch, label_batch, id_batch = _batch_examples(
        features_batch_2, label_batch_2, id_batch_2, min_queue_examples, batch_size, shuffle, num_threads)
    features_list.append(features_batch)
    labels_list.append(label_batch)
    ids_list.append(id_batch)
  return features_list, labels_list, ids_list
