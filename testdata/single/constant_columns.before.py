"""MNIST records batched beside Python constants: the split's number, bound once at the top of
the module, and a literal weight. The queue made each a tensor of its own; migrated, the map
function returns `tf.convert_to_tensor(...)` of each (TF 1.8's map function returns no Python
value), with the dtypes the queue gave them (int32, float32); so does a dict of them (the values)."""
import tensorflow as tf

SPLIT_ID = 2


def weighted_inputs(filenames, batch_size, num_epochs=1):
    filename_queue = tf.train.string_input_producer(filenames, num_epochs=num_epochs, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    features = tf.parse_single_example(serialized, features={
        'image_raw': tf.FixedLenFeature([], tf.string),
        'label': tf.FixedLenFeature([], tf.int64)})
    image = tf.cast(tf.decode_raw(features['image_raw'], tf.uint8), tf.float32)
    image.set_shape([784])
    label = tf.cast(features['label'], tf.int32)
    return tf.train.batch([image, label, SPLIT_ID, 0.5], batch_size=batch_size)


def tagged_inputs(filenames, batch_size, num_epochs=1):
    filename_queue = tf.train.string_input_producer(filenames, num_epochs=num_epochs, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    features = tf.parse_single_example(serialized, features={
        'image_raw': tf.FixedLenFeature([], tf.string),
        'label': tf.FixedLenFeature([], tf.int64)})
    return tf.train.batch({'label': features['label'], 'split': 'train', 'weight': -1.5},
                          batch_size=batch_size)
