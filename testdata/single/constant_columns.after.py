"""MNIST records batched beside Python constants: the split's number, bound once at the top of
the module, and a literal weight. The queue made each a tensor of its own; migrated, the map
function returns `tf.convert_to_tensor(...)` of each (TF 1.8's map function returns no Python
value), with the dtypes the queue gave them (int32, float32); so does a dict of them (the values)."""
import tensorflow as tf

SPLIT_ID = 2


def weighted_inputs(filenames, batch_size, num_epochs=1):
    def parse_record(serialized):
        features = tf.parse_single_example(serialized, features={
            'image_raw': tf.FixedLenFeature([], tf.string),
            'label': tf.FixedLenFeature([], tf.int64)})
        image = tf.cast(tf.decode_raw(features['image_raw'], tf.uint8), tf.float32)
        image.set_shape([784])
        label = tf.cast(features['label'], tf.int32)
        return image, label, tf.convert_to_tensor(SPLIT_ID), tf.convert_to_tensor(0.5)

    dataset = tf.data.Dataset.from_tensor_slices(filenames)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(num_epochs)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def tagged_inputs(filenames, batch_size, num_epochs=1):
    def parse_record_2(serialized):
        features = tf.parse_single_example(serialized, features={
            'image_raw': tf.FixedLenFeature([], tf.string),
            'label': tf.FixedLenFeature([], tf.int64)})
        return {'label': features['label'], 'split': tf.convert_to_tensor('train'), 'weight': tf.convert_to_tensor(-1.5)}

    dataset_2 = tf.data.Dataset.from_tensor_slices(filenames)
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.repeat(num_epochs)
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_2 = dataset_2.prefetch(1)
    return dataset_2.make_one_shot_iterator().get_next()
