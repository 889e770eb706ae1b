"""Producers whose rows are taken one at a time, with no reader between and no batching: file
names dequeued in order, the rows of two tensors sliced and shuffled, and a work list of (source,
target) pairs that Python threads take from one dequeue. Each dequeue becomes a dataset's next
element where it was; the code after it stays where it is (it ran in the step that took the row)."""
import threading

import tensorflow as tf


def next_file(files, num_epochs):
    # The file names in order, epoch after epoch, one per step.
    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.repeat(num_epochs)
    name = dataset.make_one_shot_iterator().get_next()
    return tf.expand_dims(name, 0), tf.expand_dims(tf.string_to_hash_bucket_fast(name, 1000), 0)


def scaled_rows(values, ids, num_epochs):
    # Each epoch in a new order, one row of both tensors per step.
    dataset_2 = tf.data.Dataset.from_tensor_slices((values, ids))
    dataset_2 = dataset_2.shuffle(tf.shape(values, out_type=tf.int64)[0], seed=5)
    dataset_2 = dataset_2.repeat(num_epochs)
    value, row_id = dataset_2.make_one_shot_iterator().get_next()
    return tf.expand_dims(value * 2.0, 0), tf.expand_dims(row_id, 0)


def copied_pairs(pairs, workers):
    """Threads of our own take (source, target) pairs until the list runs out; each records what
    it took. The runners' thread list also holds those threads, which the coordinator joins."""
    dataset_3 = tf.data.Dataset.from_tensor_slices(pairs)
    dataset_3 = dataset_3.repeat(1)
    next_pair = dataset_3.make_one_shot_iterator().get_next()
    done = []

    def worker(sess, coord):
        while not coord.should_stop():
            try:
                source, target = sess.run(next_pair)
            except tf.errors.OutOfRangeError:
                coord.request_stop()
                break
            done.append("%s>%s" % (source.decode(), target.decode()))

    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = []
        for _ in range(workers):
            thread = threading.Thread(target=worker, args=(sess, coord))
            thread.start()
            threads.append(thread)
        coord.join(threads)
    return sorted(done)
