"""slim input for model clones: one provider and batch, a prefetch queue, a dequeue per clone."""
import tensorflow as tf
import random

# One seed for the whole process, so that every shard shuffles the files the same way.
_FILE_ORDER_SEED = random.randint(0, 2 ** 31 - 1)

slim = tf.contrib.slim

NUM_CLONES = 2


def get_split(data_dir, split_name):
    """A slim Dataset over the TFRecord files of one split."""
    keys_to_features = {
        'image/encoded': tf.FixedLenFeature((), tf.string, default_value=''),
        'image/format': tf.FixedLenFeature((), tf.string, default_value='raw'),
        'image/class/label': tf.FixedLenFeature([], tf.int64),
        'image/id': tf.FixedLenFeature([], tf.int64),
    }
    items_to_handlers = {
        'image': slim.tfexample_decoder.Image(shape=[8, 8, 3], channels=3),
        'label': slim.tfexample_decoder.Tensor('image/class/label'),
        'id': slim.tfexample_decoder.Tensor('image/id'),
    }
    decoder = slim.tfexample_decoder.TFExampleDecoder(keys_to_features, items_to_handlers)
    return slim.dataset.Dataset(
        data_sources='%s/%s-*.tfrecord' % (data_dir, split_name),
        reader=tf.TFRecordReader,
        decoder=decoder,
        num_samples=None,
        items_to_descriptions={})


def clone_inputs(data_dir, batch_size, num_epochs=None, num_shards=1, shard_index=0):
    """Batches of the training split, shuffled by slim's common queue."""
    dataset = get_split(data_dir, 'train')
    def parse_record(serialized):
        [image, label, example_id] = dataset.decoder.decode(serialized, ['image', 'label', 'id'])
        image = tf.image.convert_image_dtype(image, tf.float32)
        return image, label, example_id

    data_files = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_2 = tf.data.Dataset.from_tensor_slices(data_files)
    dataset_2 = dataset_2.shuffle(tf.size(data_files, out_type=tf.int64), seed=_FILE_ORDER_SEED)
    dataset_2 = dataset_2.interleave(tf.data.TFRecordDataset, cycle_length=2)
    # Each tower's shard: blocks of 64 records, before the per-record work.
    dataset_2 = dataset_2.batch(64)
    dataset_2 = dataset_2.shard(num_shards, shard_index)
    dataset_2 = dataset_2.apply(tf.contrib.data.unbatch())
    # The towers shared one common queue: each shard keeps its share.
    dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(max((10 * batch_size) // num_shards, 1), num_epochs, seed=_FILE_ORDER_SEED))
    # The towers shared the queue's threads: each shard runs its share.
    dataset_2 = dataset_2.map(parse_record, num_parallel_calls=max(4 // num_shards, 1))
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset_2 = dataset_2.prefetch(1)
    images, labels, ids = dataset_2.make_one_shot_iterator().get_next()
    return images, labels, ids


def clone_losses(data_dir, batch_size):
    """A loss per clone, each clone on its own device, fed by one prefetch queue."""
    losses = []
    for i in range(NUM_CLONES):
        with tf.device('/gpu:%d' % i):
            with tf.device('/cpu:0'):
                image_batch, label_batch, id_batch = clone_inputs(data_dir, batch_size, num_shards=NUM_CLONES, shard_index=i)
            tf.add_to_collection('example_ids', id_batch)
            logits = tf.layers.dense(tf.layers.flatten(image_batch), 10, name='clone_%d' % i)
            losses.append(tf.losses.sparse_softmax_cross_entropy(label_batch, logits))
    return tf.add_n(losses)
