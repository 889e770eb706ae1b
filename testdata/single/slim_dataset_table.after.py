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
    def parse_record(serialized):
        if name == 'shapes':
            [image, key] = dataset.decoder.decode(serialized, ['picture', 'key'])
        else:
            [image, key] = dataset.decoder.decode(serialized, ['image', 'id'])
        image = tf.image.convert_image_dtype(image, tf.float32)
        return image, key

    data_files = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_2 = tf.data.Dataset.from_tensor_slices(data_files)
    if split_name == 'train':
        dataset_2 = dataset_2.shuffle(tf.size(data_files, out_type=tf.int64))
    dataset_2 = dataset_2.interleave(tf.data.TFRecordDataset, cycle_length=2)
    if split_name == 'train':
        dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(batch_size, num_epochs))
    else:
        dataset_2 = dataset_2.repeat(num_epochs)
    dataset_2 = dataset_2.map(parse_record)
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    images, keys = dataset_2.make_one_shot_iterator().get_next()
    tf.logging.info('%d examples in %s', dataset.num_samples, split_name)
    return images, keys


def module_inputs(data_dir, batch_size):
    """The Dataset made by a function of an imported module."""
    dataset = slimtable_digits.make_split(data_dir, 'eval')
    def parse_record_2(serialized):
        image, example_id = dataset.decoder.decode(serialized, ['image', 'id'])
        return tf.to_float(image), example_id

    data_files_2 = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_3 = tf.data.Dataset.from_tensor_slices(data_files_2)
    dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
    dataset_3 = dataset_3.map(parse_record_2)
    dataset_3 = dataset_3.repeat(1)
    dataset_3 = dataset_3.batch(batch_size)
    dataset_3 = dataset_3.prefetch(1)
    return list(dataset_3.make_one_shot_iterator().get_next())


def imported_function_inputs(data_dir, batch_size):
    """The Dataset made by a function imported by name."""
    dataset = digits_split(data_dir, 'train')
    def parse_record_3(serialized):
        image, label = dataset.decoder.decode(serialized, ['image', 'label'])
        return image, label

    data_files_3 = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_4 = tf.data.Dataset.from_tensor_slices(data_files_3)
    dataset_4 = dataset_4.shuffle(tf.size(data_files_3, out_type=tf.int64))
    dataset_4 = dataset_4.interleave(tf.data.TFRecordDataset, cycle_length=3)
    dataset_4 = dataset_4.apply(tf.contrib.data.shuffle_and_repeat(16))
    dataset_4 = dataset_4.map(parse_record_3)
    dataset_4 = dataset_4.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_4 = dataset_4.prefetch(1)
    return list(dataset_4.make_one_shot_iterator().get_next())


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
