"""slim providers whose Dataset comes from a dataset factory that passes a reader class down to
each dataset module's get_split(), where None stands for the module's own default
(`if reader is None: reader = tf.TFRecordReader`), as in slim's train and eval scripts: what the
factory's caller passes (or leaves out) is followed down to the Dataset. A reader class the
caller passes is read as it is; one that is not TFRecords, or that comes from a caller qmigrate
does not see, leaves the provider as it is."""
import tensorflow as tf

import slimdefault_digits
import slimdefault_factory

slim = tf.contrib.slim


def factory_inputs(name, data_dir, split_name, batch_size, num_epochs=None):
    """slim's train script: the factory's default reader class, each module's own."""
    dataset = slimdefault_factory.get_dataset(name, split_name, data_dir)
    provider = slim.dataset_data_provider.DatasetDataProvider(
        dataset, num_readers=2, common_queue_capacity=4 * batch_size, common_queue_min=batch_size,
        shuffle=False, num_epochs=num_epochs)
    if name == 'shapes':
        [image, key] = provider.get(['picture', 'key'])
    else:
        [image, key] = provider.get(['image', 'id'])
    image = tf.image.convert_image_dtype(image, tf.float32)
    return tf.train.batch([image, key], batch_size=batch_size, allow_smaller_final_batch=True)


def chosen_reader_inputs(data_dir, batch_size):
    """A reader class chosen by the caller and passed by keyword."""
    dataset = slimdefault_digits.get_split('eval', data_dir, reader=tf.TFRecordReader)
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False, num_epochs=1)
    image, example_id = provider.get(['image', 'id'])
    return tf.train.batch([tf.to_float(image), example_id], batch_size=batch_size, allow_smaller_final_batch=True)


def line_reader_inputs(data_dir, batch_size):
    """Refused: the caller passes a reader of text lines."""
    dataset = slimdefault_factory.get_dataset('digits', 'eval', data_dir, reader=tf.TextLineReader)
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False)
    [image] = provider.get(['image'])
    return tf.train.batch([image], batch_size=batch_size)


def given_reader_inputs(data_dir, batch_size, reader=None):
    """Left (migrated with --unsafe): the reader class comes from this function's own caller."""
    dataset = slimdefault_digits.get_split('eval', data_dir, reader=reader)
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False)
    [image] = provider.get(['image'])
    return tf.train.batch([image], batch_size=batch_size)
