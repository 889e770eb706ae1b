"""Multi-GPU training whose batch is split between the towers; each image drawn at a random
short side when the pyramid is on."""
import tensorflow as tf

import pyramid_records

tf.app.flags.DEFINE_string('pattern', '/tmp/records/train-*', 'training records')
tf.app.flags.DEFINE_integer('num_gpus', 2, 'towers')
tf.app.flags.DEFINE_boolean('pyramid', True, 'draw a short side for each image')
FLAGS = tf.app.flags.FLAGS
SHORT_SIDES = [24, 32, 40]


def tower_loss(images, labels):
    logits = tf.layers.dense(tf.reduce_mean(images, axis=[1, 2]), 10)
    return tf.losses.sparse_softmax_cross_entropy(labels, logits)


def train(steps):
    with tf.Graph().as_default(), tf.device('/cpu:0'):
        global_step = tf.train.get_or_create_global_step()
        optimizer = tf.train.GradientDescentOptimizer(0.01)
        with tf.name_scope('get_batch'):
            if FLAGS.pyramid:
                short_sides = tf.constant(SHORT_SIDES)
                # drawn anew for each record by the input's map function, as its queue did
                short_side = lambda: tf.random_shuffle(short_sides)[0]
            else:
                short_side = SHORT_SIDES[-1]
            images, labels = pyramid_records.next_batch(FLAGS.pattern, 4 * FLAGS.num_gpus, short_side, True)
        image_splits = tf.split(images, FLAGS.num_gpus)
        label_splits = tf.split(labels, FLAGS.num_gpus)
        grads = []
        for i in range(FLAGS.num_gpus):
            with tf.device('/gpu:%d' % i):
                loss = tower_loss(image_splits[i], label_splits[i])
                grads.append(optimizer.compute_gradients(loss))
        train_op = optimizer.apply_gradients(grads[0], global_step=global_step)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(train_op)


if __name__ == '__main__':
    train(10)
