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
    def parse_record(serialized):
        if name == 'shapes':
            [image, key] = dataset.decoder.decode(serialized, ['picture', 'key'])
        else:
            [image, key] = dataset.decoder.decode(serialized, ['image', 'id'])
        image = tf.image.convert_image_dtype(image, tf.float32)
        return image, key

    data_files = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_2 = tf.data.Dataset.from_tensor_slices(data_files)
    dataset_2 = dataset_2.interleave(tf.data.TFRecordDataset, cycle_length=2)
    dataset_2 = dataset_2.map(parse_record)
    dataset_2 = dataset_2.repeat(num_epochs)
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return list(dataset_2.make_one_shot_iterator().get_next())


def chosen_reader_inputs(data_dir, batch_size):
    """A reader class chosen by the caller and passed by keyword."""
    dataset = slimdefault_digits.get_split('eval', data_dir, reader=tf.TFRecordReader)
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
