"""Train on the digits of one file: shuffled batches of the records DigitReader reads."""
import sys

import tensorflow as tf

from digits import records


def training_batches(files, batch_size, epochs):
    """Shuffled batches of (image, label), `epochs` passes over the first file."""
    decoder = records.DigitIO().reader
    def parse_record(serialized):
        image, label = decoder.read_digits(serialized, files[0])
        return image, label

    dataset = tf.data.Dataset.from_tensor_slices([files[0]])
    dataset = dataset.shuffle(tf.size([files[0]], out_type=tf.int64))
    dataset = dataset.flat_map(tf.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=2)
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(30, epochs))
    dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    images, labels = dataset.make_one_shot_iterator().get_next()
    return images, labels


def main(files):
    images, labels = training_batches(files, 16, 2)
    logits = tf.layers.dense(images, 10)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        try:
            while True:
                sess.run(train_op)
        except tf.errors.OutOfRangeError:
            pass


if __name__ == '__main__':
    main(sys.argv[1:])
