"""Batches of examples: a pipeline's provider, read and batched here."""
import tensorflow as tf

import example_pipelines


def read_batches(files, batch_size, num_epochs=None, shuffle=True):
    """(images, labels, ids) batches; the last one may be smaller."""
    pipeline = example_pipelines.RecordPipeline({'files': files, 'shuffle': shuffle, 'num_epochs': num_epochs})
    records, slim_dataset = pipeline.make_data_provider_records()
    def parse_record(serialized):
        [image, label, example_id] = slim_dataset.decoder.decode(serialized, ['image', 'label', 'id'])
        image = tf.image.convert_image_dtype(image, tf.float32)
        return image, label, example_id

    dataset = records
    dataset = dataset.map(parse_record)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def evaluation_batches(files, batch_size):
    """One pass in file order."""
    return read_batches(files, batch_size, num_epochs=1, shuffle=False)


def training_batches(files, batch_size, epochs=2):
    """Shuffled batches for some epochs."""
    return read_batches(files, batch_size, num_epochs=epochs)


def label_bucketed_batches(files, batch_size):
    """Examples of close labels batched together, for one pass in file order."""
    pipeline = example_pipelines.RecordPipeline({'files': files, 'shuffle': False, 'num_epochs': 1})
    records_2, slim_dataset_2 = pipeline.make_data_provider_records()
    def parse_record_2(serialized):
        image, label, example_id = slim_dataset_2.decoder.decode(serialized, ['image', 'label', 'id'])
        return tf.to_int32(label), (image, label, example_id)

    dataset_2 = records_2
    dataset_2 = dataset_2.map(parse_record_2)
    dataset_2 = dataset_2.apply(tf.contrib.data.group_by_window(lambda length, tensors: tf.reduce_sum(tf.cast(tf.less_equal([3, 6], length), tf.int64)), lambda bucket, window: window.batch(batch_size), batch_size))
    dataset_2 = dataset_2.prefetch(1)
    _, (images, labels, ids) = dataset_2.make_one_shot_iterator().get_next()
    return images, labels, ids
