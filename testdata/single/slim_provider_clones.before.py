"""slim input for model clones: one provider and batch, a prefetch queue, a dequeue per clone."""
import tensorflow as tf

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


def clone_inputs(data_dir, batch_size, num_epochs=None):
    """Batches of the training split, shuffled by slim's common queue."""
    dataset = get_split(data_dir, 'train')
    provider = slim.dataset_data_provider.DatasetDataProvider(
        dataset,
        num_readers=2,
        common_queue_capacity=20 * batch_size,
        common_queue_min=10 * batch_size,
        num_epochs=num_epochs)
    [image, label, example_id] = provider.get(['image', 'label', 'id'])
    image = tf.image.convert_image_dtype(image, tf.float32)
    images, labels, ids = tf.train.batch([image, label, example_id], batch_size=batch_size, num_threads=4,
                                         capacity=5 * batch_size)
    return images, labels, ids


def clone_losses(data_dir, batch_size):
    """A loss per clone, each clone on its own device, fed by one prefetch queue."""
    with tf.device('/cpu:0'):
        images, labels, ids = clone_inputs(data_dir, batch_size)
        batch_queue = slim.prefetch_queue.prefetch_queue([images, labels, ids], capacity=2 * NUM_CLONES)
    losses = []
    for i in range(NUM_CLONES):
        with tf.device('/gpu:%d' % i):
            image_batch, label_batch, id_batch = batch_queue.dequeue()
            tf.add_to_collection('example_ids', id_batch)
            logits = tf.layers.dense(tf.layers.flatten(image_batch), 10, name='clone_%d' % i)
            losses.append(tf.losses.sparse_softmax_cross_entropy(label_batch, logits))
    return tf.add_n(losses)
