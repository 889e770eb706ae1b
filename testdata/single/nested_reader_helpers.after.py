"""Reader helpers nested two and three calls deep: the input function makes the queue, a
preprocessing helper passes it on to a decoding helper, which passes it to the helper that makes
the reader. Each helper in between is migrated to take the record; the innermost loses its reader.
An evaluation input that keeps its queue calls the decoding helper too: that one (and the helper
it calls) stays for it, and the training pipeline calls migrated copies."""
import tensorflow as tf

LABEL_BYTES = 1


def read_record(filename_queue, image_bytes):
  """Reads one fixed-length record.

  Args:
    filename_queue: A queue of strings with the file names to read from.
    image_bytes: the number of image bytes after the label byte.
  """
  record_bytes = LABEL_BYTES + image_bytes
  reader = tf.FixedLengthRecordReader(record_bytes=record_bytes)
  _, value = reader.read(filename_queue)
  raw = tf.decode_raw(value, tf.uint8)
  label = tf.cast(raw[0], tf.int32)
  image = tf.reshape(raw[LABEL_BYTES:], [3, 32, 32])
  return image, label


def parse_record(value, image_bytes):
  """Reads one fixed-length record.

  Args:
    value: one record read from the files, a scalar string Tensor.
    image_bytes: the number of image bytes after the label byte.
  """
  raw = tf.decode_raw(value, tf.uint8)
  label = tf.cast(raw[0], tf.int32)
  image = tf.reshape(raw[LABEL_BYTES:], [3, 32, 32])
  return image, label


def decode_image(filename_queue, height, width):
  image, label = read_record(filename_queue, image_bytes=3 * height * width)
  image = tf.transpose(image, [1, 2, 0])
  return tf.cast(image, tf.float32), label


def decode_image_from_record(value, height, width):
  image, label = parse_record(value, image_bytes=3 * height * width)
  image = tf.transpose(image, [1, 2, 0])
  return tf.cast(image, tf.float32), label


def preprocess(value, size, flip):
  image, label = decode_image_from_record(value, size, size)
  if flip:
    image = tf.image.flip_left_right(image)
  return image, label


def train_inputs(files, batch_size):
  def parse_record_2(value):
    image, label = preprocess(value, 32, flip=True)
    return image, label

  dataset = tf.data.Dataset.from_tensor_slices(files)
  dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
  dataset = dataset.flat_map(lambda filename: tf.data.FixedLengthRecordDataset(filename, record_bytes=LABEL_BYTES + (3 * 32 * 32)))
  dataset = dataset.map(parse_record_2)
  dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(100, 1))
  dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
  dataset = dataset.prefetch(1)
  images, labels = dataset.make_one_shot_iterator().get_next()
  return images, labels


def eval_inputs(files, batch_size):
  filename_queue = tf.train.string_input_producer(files, shuffle=False)
  tf.summary.scalar('files_left', filename_queue.size())
  image, label = decode_image(filename_queue, 32, 32)
  return tf.train.batch([image, label], batch_size=batch_size)
