"""Records read in chunks (read_up_to) and parsed a chunk at a time with parse_example."""
import tensorflow as tf

FEATURES = {
    'x': tf.FixedLenFeature([3], tf.float32),
    'id': tf.FixedLenFeature([], tf.int64),
}


def chunked_inputs(files, batch_size, chunk=16):
    def parse_record(serialized):
        features = tf.parse_example(serialized, FEATURES)
        return features['x'], features['id']

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(lambda filename: tf.data.TFRecordDataset(filename).batch(chunk))
    dataset = dataset.map(parse_record)
    dataset = dataset.apply(tf.contrib.data.unbatch())
    dataset = dataset.repeat(1)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())
