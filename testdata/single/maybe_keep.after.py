"""Records kept by a condition computed from each record (maybe_batch, maybe_shuffle_batch)."""
import tensorflow as tf

FEATURES = {'x': tf.FixedLenFeature([3], tf.float32), 'id': tf.FixedLenFeature([], tf.int64)}


def even_ids(files, batch_size):
    def parse_record(serialized):
        example = tf.parse_single_example(serialized, FEATURES)
        keep = tf.equal(example['id'] % 2, 0)
        return example, tf.convert_to_tensor(keep, tf.bool)

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.filter(lambda element, keep: keep)
    dataset = dataset.map(lambda element, keep: element)
    dataset = dataset.repeat(1)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return dataset.make_one_shot_iterator().get_next()


def shuffled_small_ids(files, batch_size):
    def parse_record_2(serialized):
        example = tf.parse_single_example(serialized, FEATURES)
        return (example['x'], example['id']), tf.convert_to_tensor(example['id'] < 30, tf.bool)

    dataset_2 = tf.data.Dataset.from_tensor_slices(files)
    dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64))
    dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.filter(lambda element, keep: keep)
    dataset_2 = dataset_2.map(lambda element, keep: element)
    dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(10, 2))
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())
