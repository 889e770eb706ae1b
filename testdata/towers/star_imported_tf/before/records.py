"""The program's input: numbered records of TFRecord files, in batches."""
import tensorflow as tf


def batches(files, batch_size, epochs=1):
    queue = tf.train.string_input_producer(files, num_epochs=epochs, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(queue)
    features = tf.parse_single_example(serialized, features={
        'id': tf.FixedLenFeature([], tf.int64),
        'x': tf.FixedLenFeature([3], tf.float32)})
    return tf.train.batch([features['id'], features['x']], batch_size=batch_size,
                          allow_smaller_final_batch=True)
