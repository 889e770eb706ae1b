"""A module whose own pipeline migrates beside a slim Dataset definition: the reader class handed to
slim stays, reported (slim reads it through queues wherever a provider reads that dataset)."""
import tensorflow as tf

slim = tf.contrib.slim


def get_split(pattern, decoder, size):
    return slim.dataset.Dataset(data_sources=pattern, reader=tf.TFRecordReader, decoder=decoder,
                                num_samples=size, items_to_descriptions={})


def ids(files, batch_size):
    def parse_record(serialized):
        parsed = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})
        return parsed['id']

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record)
    dataset = dataset.repeat(1)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return dataset.make_one_shot_iterator().get_next()
