"""One reader read n times a run into a list, batched with enqueue_many=True: each run of the
enqueue op reads n records in a row (across file and epoch ends), and the last run, cut short by
the end of the epochs, loses what it read. The dataset groups the repeated records n at a time,
dropping the short last group, then batches them as one record a run."""
import tensorflow as tf

FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def grouped_batches(files, batch_size, group):
  """Parsed per record in the loop; 2 epochs in file order."""
  queue = tf.train.string_input_producer(files, num_epochs=2, shuffle=False)
  reader = tf.TFRecordReader()
  rows = []
  for _ in range(group):
    _, serialized = reader.read(queue)
    example = tf.parse_single_example(serialized, FEATURES)
    rows.append(example['x'])
  return tf.train.shuffle_batch([rows], batch_size, capacity=50, min_after_dequeue=10,
                                enqueue_many=True)


def stacked_records(files, batch_size):
  """The raw records stacked, shuffled files, no epoch limit: no group is ever cut short."""
  queue = tf.train.string_input_producer(files)
  reader = tf.TFRecordReader()
  records = []
  for i in range(100):
    key, value = reader.read(queue)
    records.append(value)
  serialized = tf.train.batch([tf.stack(records)], batch_size, num_threads=2, enqueue_many=True)
  return tf.parse_example(serialized, FEATURES)


def per_example_lists(files, batch_size):
  """Not rewritten: without enqueue_many each example is the whole group of 10."""
  queue = tf.train.string_input_producer(files, num_epochs=1)
  reader = tf.TFRecordReader()
  records = []
  for _ in range(10):
    _, value = reader.read(queue)
    records.append(value)
  return tf.train.batch([records], batch_size)
