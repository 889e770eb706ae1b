"""Records read and parsed in one function and returned as a tuple; the caller hands them to
another function that scales each record and batches them, keeping the final partial batch."""
import tensorflow as tf


def _parsed_records(files, epochs):
    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.repeat(epochs)

    def parse_record(serialized):
        features = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([1], tf.int64),
                                                        'x': tf.FixedLenFeature([3], tf.float32)})
        return features['id'], tf.reshape(features['x'], [3])

    return dataset.map(parse_record)


def _scaled_batches(records, batch_size, scale):
    def prepare_record(example_id, x):
        x = x * scale
        return example_id, x

    dataset = records.map(prepare_record)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    ids, xs = dataset.make_one_shot_iterator().get_next()
    return ids, xs


def scaled_batches(files, batch_size, epochs=1, scale=2.0):
    records = _parsed_records(files, epochs)
    ids, xs = _scaled_batches(records, batch_size, scale)
    return [ids, xs]
