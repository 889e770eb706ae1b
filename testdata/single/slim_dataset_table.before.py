"""slim providers whose Dataset is made in other modules: picked from a table of dataset modules,
or made by a function of an imported module."""
import tensorflow as tf

import slimtable_digits
import slimtable_lines
import slimtable_shapes
from slimtable_digits import make_split as digits_split

slim = tf.contrib.slim

SPLIT_MODULES = {
    'digits': slimtable_digits,
    'shapes': slimtable_shapes,
}

WITH_LINES = {'digits': slimtable_digits, 'lines': slimtable_lines}

GROWING = {'digits': slimtable_digits}


def register(name, module):
    GROWING[name] = module


def dataset_for(name, data_dir, split_name):
    """One of the table's datasets; an unknown name fails as a lookup would."""
    if name not in SPLIT_MODULES:
        raise ValueError('unknown dataset %s' % name)
    dataset = SPLIT_MODULES[name].make_split(data_dir, split_name)
    dataset.label_count = 10
    return dataset


def table_inputs(name, data_dir, split_name, batch_size, num_epochs=None):
    """Shuffled for training only; which items are read depends on the dataset."""
    dataset = dataset_for(name, data_dir, split_name)
    provider = slim.dataset_data_provider.DatasetDataProvider(
        dataset, num_readers=2, common_queue_capacity=4 * batch_size, common_queue_min=batch_size,
        shuffle=(split_name == 'train'), num_epochs=num_epochs)
    if name == 'shapes':
        [image, key] = provider.get(['picture', 'key'])
    else:
        [image, key] = provider.get(['image', 'id'])
    image = tf.image.convert_image_dtype(image, tf.float32)
    images, keys = tf.train.batch([image, key], batch_size=batch_size, allow_smaller_final_batch=True)
    tf.logging.info('%d examples in %s', dataset.num_samples, split_name)
    return images, keys


def module_inputs(data_dir, batch_size):
    """The Dataset made by a function of an imported module."""
    dataset = slimtable_digits.make_split(data_dir, 'eval')
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False, num_epochs=1)
    image, example_id = provider.get(['image', 'id'])
    return tf.train.batch([tf.to_float(image), example_id], batch_size=batch_size, allow_smaller_final_batch=True)


def imported_function_inputs(data_dir, batch_size):
    """The Dataset made by a function imported by name."""
    dataset = digits_split(data_dir, 'train')
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, num_readers=3, common_queue_min=16)
    image, label = provider.get(['image', 'label'])
    return tf.train.batch([image, label], batch_size=batch_size)


def with_lines(name, data_dir, batch_size):
    """Refused: one of the table's modules reads text lines."""
    dataset = WITH_LINES[name].make_split(data_dir, 'eval')
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False)
    [line] = provider.get(['line'])
    return tf.train.batch([line], batch_size=batch_size)


def growing(name, data_dir, batch_size):
    """Refused: the table gets entries at run time."""
    dataset = GROWING[name].make_split(data_dir, 'eval')
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False)
    [image] = provider.get(['image'])
    return tf.train.batch([image], batch_size=batch_size)


def swapped_reader(data_dir, batch_size):
    """Refused: the reader class is replaced after the Dataset is made."""
    dataset = slimtable_shapes.make_split(data_dir, 'eval')
    dataset.reader = tf.TextLineReader
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False)
    [key] = provider.get(['key'])
    return tf.train.batch([key], batch_size=batch_size)
