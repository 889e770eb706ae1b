"""A reading method of a loader class called by two of its pipelines: one batches the records
plainly, the other pairs them with a second chain made in an if/else whose test calls a function
(any()), which qmigrate leaves as it is. The method stays for that second pipeline (it still hands
it a queue); the first pipeline is migrated and calls a migrated copy of the method, defined
beside it, that takes the record."""
import tensorflow as tf


class RecordLoader(object):
    def __init__(self, files, batch_size, num_epochs=None):
        self.files = files
        self.batch_size = batch_size
        self.num_epochs = num_epochs

    def read_example(self, filename_queue, with_values=False):
        with tf.name_scope(None, 'read_example', [filename_queue]):
            reader = tf.TFRecordReader()
            _, serialized = reader.read(filename_queue)
            features = tf.parse_single_example(serialized, {
                'x': tf.FixedLenFeature([3], tf.float32),
                'id': tf.FixedLenFeature([], tf.int64),
                'v': tf.FixedLenFeature([2], tf.float32)})
            x = features['x'] * 2.0
            if with_values:
                return x, features['id'], features['v']
            return x, features['id']

    def parse_example(self, serialized, with_values=False):
        with tf.name_scope(None, 'read_example', [serialized]):
            features = tf.parse_single_example(serialized, {
                'x': tf.FixedLenFeature([3], tf.float32),
                'id': tf.FixedLenFeature([], tf.int64),
                'v': tf.FixedLenFeature([2], tf.float32)})
            x = features['x'] * 2.0
            if with_values:
                return x, features['id'], features['v']
            return x, features['id']

    def train_batches(self):
        """Shuffled batches of (x, id), by name."""
        def parse_record(serialized):
            x, example_id = self.parse_example(serialized)
            return x, example_id

        min_after_dequeue = 10
        names = ['x', 'id']

        dataset = tf.data.Dataset.from_tensor_slices(self.files)
        dataset = dataset.shuffle(tf.size(self.files, out_type=tf.int64))
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
        dataset = dataset.map(parse_record, num_parallel_calls=2)
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(min_after_dequeue or min_after_dequeue + 3 * self.batch_size, self.num_epochs))
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(self.batch_size))
        dataset = dataset.prefetch(1)
        batches = list(dataset.make_one_shot_iterator().get_next())
        by_name = {}
        for name, batch in zip(names, batches):
            by_name[name] = batch
        return by_name

    def paired_batches(self, other_files):
        """Batches of two records at a time when there are other files, else of one."""
        filename_queue = tf.train.string_input_producer(self.files, num_epochs=self.num_epochs)
        x, example_id, values = self.read_example(filename_queue, with_values=True)
        if any(other_files):
            other_queue = tf.train.string_input_producer(other_files, num_epochs=self.num_epochs)
            other_x, other_id = self.read_example(other_queue)
            x = tf.stack([x, other_x])
            example_id = tf.stack([example_id, other_id])
        else:
            x = tf.expand_dims(x, 0)
            example_id = tf.expand_dims(example_id, 0)
        return tf.train.batch([x, example_id], batch_size=self.batch_size, enqueue_many=True)


def loader_batches(files, batch_size):
    return RecordLoader(files, batch_size, num_epochs=2).train_batches()
