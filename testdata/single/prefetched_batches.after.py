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
        def parse_record(serialized):
            x, example_id = _parse(serialized)
            x = x * 2.0
            return x, example_id

        dataset = tf.data.Dataset.from_tensor_slices(files)
        dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
        dataset = dataset.map(parse_record, num_parallel_calls=2)
        dataset = dataset.repeat(2)
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))

        def prepare_batch(xs, ids):
            labels = slim.one_hot_encoding(ids % NUM_CLASSES, NUM_CLASSES)
            return xs, ids, labels

        dataset = dataset.map(prepare_batch)
        # Each get_next() takes the next batch, as each dequeue of the prefetch queue did.
        dataset = dataset.prefetch(2 * num_clones)
        batch_queue = dataset.make_one_shot_iterator()

    def clone_fn(batch_queue):
        x_batch, id_batch, label_batch = batch_queue.get_next()
        return x_batch, id_batch, label_batch

    clones = create_clones(num_clones, clone_fn, [batch_queue])
    return (tf.concat([clone[0] for clone in clones], 0), tf.concat([clone[1] for clone in clones], 0),
            tf.concat([clone[2] for clone in clones], 0))


def tower_batches(files, batch_size, num_towers):
    with tf.device('/cpu:0'):
        def parse_record_2(serialized):
            x, example_id = _parse(serialized)
            return x, example_id

        dataset_2 = tf.data.Dataset.from_tensor_slices(files)
        dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64))
        dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
        dataset_2 = dataset_2.map(parse_record_2)
        dataset_2 = dataset_2.repeat(2)
        dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        # Each get_next() takes the next batch, as each dequeue of the prefetch queue did.
        dataset_2 = dataset_2.prefetch(8)
        batch_queue = dataset_2.make_one_shot_iterator()
    tower_xs, tower_ids = [], []
    for i in range(num_towers):
        with tf.device('/cpu:0'):
            x_batch, id_batch = batch_queue.get_next()
            tower_xs.append(x_batch)
            tower_ids.append(id_batch)
    return tf.concat(tower_xs, 0), tf.concat(tower_ids, 0)


def sized_batches(files, batch_size):
    def parse_record_3(serialized):
        x, example_id = _parse(serialized)
        return x, example_id

    dataset_3 = tf.data.Dataset.from_tensor_slices(files)
    dataset_3 = dataset_3.shuffle(tf.size(files, out_type=tf.int64))
    dataset_3 = dataset_3.flat_map(tf.data.TFRecordDataset)
    dataset_3 = dataset_3.map(parse_record_3)
    dataset_3 = dataset_3.repeat()
    dataset_3 = dataset_3.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_3 = dataset_3.prefetch(1)
    xs, ids = dataset_3.make_one_shot_iterator().get_next()
    ready_queue = slim.prefetch_queue.prefetch_queue([xs, ids])
    tf.summary.scalar('batches_ready', ready_queue.size())
    return ready_queue.dequeue()
