"""Batches put in a prefetch queue that towers dequeue, in the shapes of slim's image trainer:
the batching and the queue sit in one block, with code on the batch between them, and the queue
is handed with a clone function to a helper that calls it once per clone (as slim's
model_deploy.create_clones does). Each dequeue took the next batch; each get_next() of one
iterator does the same, so the queue becomes the batch's iterator, the code on the batch a map
over batches, and every dequeue a get_next(). A queue also asked its size stays, with the reason."""
import tensorflow as tf

slim = tf.contrib.slim

NUM_CLASSES = 4


def create_clones(num_clones, model_fn, args=None, kwargs=None):
    """Calls model_fn(*args, **kwargs) once per clone, each on its own device."""
    clones = []
    args = args or []
    kwargs = kwargs or {}
    for i in range(num_clones):
        with tf.name_scope('clone_%d' % i):
            with tf.device('/cpu:0'):
                clones.append(model_fn(*args, **kwargs))
    return clones


def _parse(serialized):
    features = tf.parse_single_example(serialized, features={
        'x': tf.FixedLenFeature([3], tf.float32),
        'id': tf.FixedLenFeature([], tf.int64)})
    return features['x'], features['id']


def clone_batches(files, batch_size, num_clones):
    with tf.device('/cpu:0'):
        filename_queue = tf.train.string_input_producer(files, num_epochs=2)
        reader = tf.TFRecordReader()
        _, serialized = reader.read(filename_queue)
        x, example_id = _parse(serialized)
        x = x * 2.0
        xs, ids = tf.train.batch([x, example_id], batch_size=batch_size, num_threads=2,
                                 capacity=5 * batch_size)
        labels = slim.one_hot_encoding(ids % NUM_CLASSES, NUM_CLASSES)
        batch_queue = slim.prefetch_queue.prefetch_queue(
            [xs, ids, labels], capacity=2 * num_clones)

    def clone_fn(batch_queue):
        x_batch, id_batch, label_batch = batch_queue.dequeue()
        return x_batch, id_batch, label_batch

    clones = create_clones(num_clones, clone_fn, [batch_queue])
    return (tf.concat([clone[0] for clone in clones], 0), tf.concat([clone[1] for clone in clones], 0),
            tf.concat([clone[2] for clone in clones], 0))


def tower_batches(files, batch_size, num_towers):
    with tf.device('/cpu:0'):
        filename_queue = tf.train.string_input_producer(files, num_epochs=2)
        reader = tf.TFRecordReader()
        _, serialized = reader.read(filename_queue)
        x, example_id = _parse(serialized)
        xs, ids = tf.train.batch([x, example_id], batch_size=batch_size)
        batch_queue = slim.prefetch_queue.prefetch_queue([xs, ids])
    tower_xs, tower_ids = [], []
    for i in range(num_towers):
        with tf.device('/cpu:0'):
            x_batch, id_batch = batch_queue.dequeue()
            tower_xs.append(x_batch)
            tower_ids.append(id_batch)
    return tf.concat(tower_xs, 0), tf.concat(tower_ids, 0)


def sized_batches(files, batch_size):
    filename_queue = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    x, example_id = _parse(serialized)
    xs, ids = tf.train.batch([x, example_id], batch_size=batch_size)
    ready_queue = slim.prefetch_queue.prefetch_queue([xs, ids])
    tf.summary.scalar('batches_ready', ready_queue.size())
    return ready_queue.dequeue()
