"""One reader read n times a run into a list, batched with enqueue_many=True: each run of the
enqueue op reads n records in a row (across file and epoch ends), and the last run, cut short by
the end of the epochs, loses what it read. The dataset groups the repeated records n at a time,
dropping the short last group, then batches them as one record a run."""
import tensorflow as tf

FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def grouped_batches(files, batch_size, group):
  """Parsed per record in the loop; 2 epochs in file order."""
  def parse_record(serialized):
    example = tf.parse_single_example(serialized, FEATURES)
    return tf.convert_to_tensor(example['x'])

  dataset = tf.data.Dataset.from_tensor_slices(files)
  dataset = dataset.flat_map(tf.data.TFRecordDataset)
  # Groups of `group` records in a row (one reader's reads a run), across epoch ends; the last
  # group, cut short by the end of the epochs, is lost.
  dataset = dataset.repeat(2)
  dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(group))
  dataset = dataset.apply(tf.contrib.data.unbatch())
  dataset = dataset.map(parse_record)
  dataset = dataset.shuffle(10)
  dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset = dataset.prefetch(1)
  return dataset.make_one_shot_iterator().get_next()


def stacked_records(files, batch_size):
  """The raw records stacked, shuffled files, no epoch limit: no group is ever cut short."""
  dataset_2 = tf.data.Dataset.from_tensor_slices(files)
  dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64))
  dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
  # Groups of `100` records in a row (one reader's reads a run), across epoch ends; the epochs
  # never end, so no group is cut short.
  dataset_2 = dataset_2.repeat()
  dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset_2 = dataset_2.prefetch(1)
  serialized = dataset_2.make_one_shot_iterator().get_next()
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
