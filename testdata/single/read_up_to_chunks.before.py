"""Records read in chunks (read_up_to) and parsed a chunk at a time with parse_example."""
import tensorflow as tf

FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def chunked_inputs(files, batch_size, chunk=16):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    _, serialized = reader.read_up_to(queue, num_records=chunk)
    features = tf.parse_example(serialized, FEATURES)
    return tf.train.batch([features['x'], features['id']], batch_size=batch_size, enqueue_many=True,
                          allow_smaller_final_batch=True)
