"""Lists for `*_join` built by a loop that dequeues file names from one producer, each iteration
reading and decoding its own file: the join's n threads each took their own names, so the names
are the records of one dataset, mapped n at a time. A loop that runs code before its dequeue, or
uses its variable, stays, with the reason."""
import tensorflow as tf


def image_batches(pattern_files, batch_size, threads=3):
    def parse_record(row):
        contents = tf.read_file(row)
        image = tf.image.decode_png(contents, channels=1)
        image = tf.image.resize_images(image, [28, 28])
        return image

    dataset = tf.data.Dataset.from_tensor_slices(pattern_files)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(tf.shape(pattern_files, out_type=tf.int64)[0], 1))
    dataset = dataset.map(parse_record, num_parallel_calls=threads)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return dataset.make_one_shot_iterator().get_next()


def named_batches(pattern_files, batch_size):
    def parse_record_2(row):
        path = row
        pixels = tf.image.decode_png(tf.read_file(path), channels=1)
        return {'path': path, 'mean': tf.reduce_mean(tf.to_float(pixels))}

    # The file name goes with its pixels, as a dict.
    dataset_2 = tf.data.Dataset.from_tensor_slices(pattern_files)
    dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=2)
    dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(10, 2))
    dataset_2 = dataset_2.batch(batch_size)
    dataset_2 = dataset_2.prefetch(1)
    return dataset_2.make_one_shot_iterator().get_next()


def numbered_batches(pattern_files, batch_size):
    path_queue = tf.train.string_input_producer(pattern_files, num_epochs=1)
    per_thread = []
    for index in range(2):
        contents = tf.read_file(path_queue.dequeue())
        per_thread.append([tf.string_join([contents, tf.as_string(index)])])
    return tf.train.batch_join(per_thread, batch_size=batch_size, allow_smaller_final_batch=True)


def counted_batches(pattern_files, batch_size):
    path_queue = tf.train.string_input_producer(pattern_files, num_epochs=1)
    per_thread = []
    for _ in range(2):
        tf.logging.info('one more reading thread')
        contents = tf.read_file(path_queue.dequeue())
        per_thread.append([contents])
    return tf.train.batch_join(per_thread, batch_size=batch_size, allow_smaller_final_batch=True)
