"""Per-record code that reads what a one-shot iterator's map function cannot hold stays, saying
so: the global step read through `tf.train.get_or_create_global_step()` (noise that grows with
training), and a variable made at the top of the module (a running mean). Under TF 1.8 both
migrations failed when the dataset was built."""
import tensorflow as tf

MEAN = tf.Variable(0.0, trainable=False, name='running_mean')


def _parse(serialized):
    features = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64),
                                                    'x': tf.FixedLenFeature([3], tf.float32)})
    return features['id'], features['x']


def noisy_inputs(files, batch_size):
    filename_queue = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    example_id, x = _parse(serialized)
    x = x + tf.random_normal([3]) * 0.001 * tf.cast(tf.train.get_or_create_global_step(), tf.float32)
    return tf.train.shuffle_batch([example_id, x], batch_size=batch_size, capacity=50, min_after_dequeue=10)


def centred_inputs(files, batch_size):
    filename_queue = tf.train.string_input_producer(files, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    example_id, x = _parse(serialized)
    return tf.train.batch([example_id, x - MEAN], batch_size=batch_size)
