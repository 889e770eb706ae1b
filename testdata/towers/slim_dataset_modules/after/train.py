import tensorflow as tf

from datasets import factory

slim = tf.contrib.slim
tf.app.flags.DEFINE_string('dataset_name', 'shapes', 'which dataset')
tf.app.flags.DEFINE_string('dataset_dir', '/tmp/data', 'where its files are')
tf.app.flags.DEFINE_integer('batch_size', 32, 'examples per step')
FLAGS = tf.app.flags.FLAGS


def main(_):
    dataset = factory.get_dataset(FLAGS.dataset_name, 'train', FLAGS.dataset_dir)
    def parse_record(serialized):
        image, label = dataset.decoder.decode(serialized, ['image', 'label'])
        image = tf.image.convert_image_dtype(image, tf.float32)
        return image, label

    data_files = tf.contrib.slim.parallel_reader.get_data_files(dataset.data_sources)
    dataset_2 = tf.data.Dataset.from_tensor_slices(data_files)
    dataset_2 = dataset_2.shuffle(tf.size(data_files, out_type=tf.int64))
    dataset_2 = dataset_2.interleave(tf.data.TFRecordDataset, cycle_length=2)
    dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(10 * FLAGS.batch_size))
    dataset_2 = dataset_2.map(parse_record, num_parallel_calls=2)
    dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(FLAGS.batch_size))
    dataset_2 = dataset_2.prefetch(1)
    images, labels = dataset_2.make_one_shot_iterator().get_next()
    logits = slim.fully_connected(slim.flatten(images), dataset.num_classes if hasattr(dataset, 'num_classes') else 10)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
    with tf.train.MonitoredTrainingSession() as sess:
        while not sess.should_stop():
            sess.run(train_op)


if __name__ == '__main__':
    tf.app.run()
