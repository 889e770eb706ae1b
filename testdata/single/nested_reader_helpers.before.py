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


def decode_image(filename_queue, height, width):
  image, label = read_record(filename_queue, image_bytes=3 * height * width)
  image = tf.transpose(image, [1, 2, 0])
  return tf.cast(image, tf.float32), label


def preprocess(filename_queue, size, flip):
  image, label = decode_image(filename_queue, size, size)
  if flip:
    image = tf.image.flip_left_right(image)
  return image, label


def train_inputs(files, batch_size):
  filename_queue = tf.train.string_input_producer(files, num_epochs=1)
  image, label = preprocess(filename_queue, 32, flip=True)
  images, labels = tf.train.shuffle_batch(
      [image, label], batch_size=batch_size, capacity=200, min_after_dequeue=100)
  return images, labels


def eval_inputs(files, batch_size):
  filename_queue = tf.train.string_input_producer(files, shuffle=False)
  tf.summary.scalar('files_left', filename_queue.size())
  image, label = decode_image(filename_queue, 32, 32)
  return tf.train.batch([image, label], batch_size=batch_size)
