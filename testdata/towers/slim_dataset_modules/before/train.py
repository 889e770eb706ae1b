import tensorflow as tf

from datasets import factory

slim = tf.contrib.slim
tf.app.flags.DEFINE_string('dataset_name', 'shapes', 'which dataset')
tf.app.flags.DEFINE_string('dataset_dir', '/tmp/data', 'where its files are')
tf.app.flags.DEFINE_integer('batch_size', 32, 'examples per step')
FLAGS = tf.app.flags.FLAGS


def main(_):
    dataset = factory.get_dataset(FLAGS.dataset_name, 'train', FLAGS.dataset_dir)
    provider = slim.dataset_data_provider.DatasetDataProvider(
        dataset, num_readers=2, common_queue_capacity=20 * FLAGS.batch_size,
        common_queue_min=10 * FLAGS.batch_size)
    image, label = provider.get(['image', 'label'])
    image = tf.image.convert_image_dtype(image, tf.float32)
    images, labels = tf.train.batch([image, label], batch_size=FLAGS.batch_size, num_threads=2,
                                    capacity=5 * FLAGS.batch_size)
    logits = slim.fully_connected(slim.flatten(images), dataset.num_classes if hasattr(dataset, 'num_classes') else 10)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
    with tf.train.MonitoredTrainingSession() as sess:
        while not sess.should_stop():
            sess.run(train_op)


if __name__ == '__main__':
    tf.app.run()
