"""The program's input: numbered records of TFRecord files, in batches."""
import tensorflow as tf


def batches(files, batch_size, epochs=1):
    def parse_record(serialized):
        features = tf.parse_single_example(serialized, features={
            'id': tf.FixedLenFeature([], tf.int64),
            'x': tf.FixedLenFeature([3], tf.float32)})
        return features['id'], features['x']

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(epochs)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())
