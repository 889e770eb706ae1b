"""Images and labels in parallel file lists, each read by its own reader, paired only by a shared
seed and batched together: zipped, each chain keeping that seed (two tf.data shuffles of the same
size and seed give the same permutations, as the two producers did), and the shared seed reported."""
import tensorflow as tf

SEED = 66478


def paired_inputs(image_files, label_files, batch_size):
    def parse_record(image_data, label_line):
        image = tf.image.decode_png(image_data, channels=1)
        label = tf.string_to_number(label_line, out_type=tf.int32)
        return image, label

    image_data_records = tf.data.Dataset.from_tensor_slices(image_files)
    image_data_records = image_data_records.shuffle(tf.size(image_files, out_type=tf.int64), seed=SEED)
    image_data_records = image_data_records.map(tf.read_file)
    image_data_records = image_data_records.repeat()
    label_line_records = tf.data.Dataset.from_tensor_slices(label_files)
    label_line_records = label_line_records.shuffle(tf.size(label_files, out_type=tf.int64), seed=SEED)
    label_line_records = label_line_records.flat_map(tf.data.TextLineDataset)
    label_line_records = label_line_records.repeat()
    # One record of each chain per element, in order (a batching queue with several threads could
    # pair records of different runs); the zip ends with the first chain that ends.
    dataset = tf.data.Dataset.zip((image_data_records, label_line_records))
    dataset = dataset.map(parse_record)
    dataset = dataset.shuffle(50)
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def eval_inputs(image_files, batch_size):
    """Same seed, other function: not a pair."""
    def parse_record_3(data):
        image = tf.image.decode_png(data, channels=1)
        image.set_shape([20, 20, 1])
        return image

    dataset_3 = tf.data.Dataset.from_tensor_slices(image_files)
    dataset_3 = dataset_3.shuffle(tf.size(image_files, out_type=tf.int64), seed=SEED)
    dataset_3 = dataset_3.map(tf.read_file)
    dataset_3 = dataset_3.map(parse_record_3)
    dataset_3 = dataset_3.repeat()
    dataset_3 = dataset_3.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_3 = dataset_3.prefetch(1)
    return dataset_3.make_one_shot_iterator().get_next()
