"""Batches of examples: a pipeline's provider, read and batched here."""
import tensorflow as tf

import example_pipelines


def read_batches(files, batch_size, num_epochs=None, shuffle=True):
    """(images, labels, ids) batches; the last one may be smaller."""
    pipeline = example_pipelines.RecordPipeline({'files': files, 'shuffle': shuffle, 'num_epochs': num_epochs})
    provider = pipeline.make_data_provider()
    [image, label, example_id] = provider.get(['image', 'label', 'id'])
    image = tf.image.convert_image_dtype(image, tf.float32)
    return tf.train.batch(
        [image, label, example_id],
        batch_size=batch_size,
        capacity=4 * batch_size,
        allow_smaller_final_batch=True)


def evaluation_batches(files, batch_size):
    """One pass in file order."""
    return read_batches(files, batch_size, num_epochs=1, shuffle=False)


def training_batches(files, batch_size, epochs=2):
    """Shuffled batches for some epochs."""
    return read_batches(files, batch_size, num_epochs=epochs)


def label_bucketed_batches(files, batch_size):
    """Examples of close labels batched together, for one pass in file order."""
    pipeline = example_pipelines.RecordPipeline({'files': files, 'shuffle': False, 'num_epochs': 1})
    provider = pipeline.make_data_provider()
    image, label, example_id = provider.get(['image', 'label', 'id'])
    _, (images, labels, ids) = tf.contrib.training.bucket_by_sequence_length(
        input_length=tf.to_int32(label),
        tensors=[image, label, example_id],
        batch_size=batch_size,
        bucket_boundaries=[3, 6],
        allow_smaller_final_batch=True)
    return images, labels, ids
