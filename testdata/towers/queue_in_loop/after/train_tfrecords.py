"""Multi-GPU training on TFRecords with one shared reader and a shuffle_batch in every tower.

The records are read and decoded once, outside the tower loop; each tower builds its own
shuffle_batch queue on the shared reader, so each record goes to exactly one tower's queue.
(Instrumented for the tests: each tower's example ids go to the 'example_ids' collection.)
"""
import os

import tensorflow as tf
import random

# One seed for the whole process, so that every shard shuffles the files the same way.
_FILE_ORDER_SEED = random.randint(0, 2 ** 31 - 1)

FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_string('data_dir', '/tmp/records', 'Where the TFRecord files are.')
tf.app.flags.DEFINE_string('train_dir', '/tmp/train', 'Where checkpoints go.')
tf.app.flags.DEFINE_integer('max_steps', 100, 'Training steps.')
tf.app.flags.DEFINE_integer('num_gpus', 4, 'How many GPUs to use.')
tf.app.flags.DEFINE_integer('batch_size', 32, 'Examples per tower and step.')

NUM_EXAMPLES_PER_EPOCH_FOR_EVAL = 256
FEATURES = {
    'image_raw': tf.FixedLenFeature([], tf.string),
    'label': tf.FixedLenFeature([], tf.int64),
    'id': tf.FixedLenFeature([], tf.int64),
}


def inputs(eval_data):
  """Evaluation input: the test records in file order, centre-cropped."""
  files = [os.path.join(FLAGS.data_dir, 'test.tfrecords')]
  def parse_record(serialized):
    features = tf.parse_single_example(serialized, features=FEATURES)
    image = tf.reshape(tf.decode_raw(features['image_raw'], tf.uint8), [3, 32, 32])
    image = tf.cast(tf.transpose(image, [1, 2, 0]), tf.float32)
    image = tf.image.per_image_standardization(tf.image.resize_image_with_crop_or_pad(image, 24, 24))
    label = tf.cast(features['label'], tf.int32)
    example_id = tf.cast(features['id'], tf.int32)
    return image, label, example_id

  dataset = tf.data.Dataset.from_tensor_slices(files)
  dataset = dataset.flat_map(tf.data.TFRecordDataset)
  dataset = dataset.map(parse_record)
  dataset = dataset.repeat()
  dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(FLAGS.batch_size))
  dataset = dataset.prefetch(1)
  return list(dataset.make_one_shot_iterator().get_next())


def inference(images):
  with tf.variable_scope('conv1'):
    kernel = tf.get_variable('weights', [5, 5, 3, 16],
                             initializer=tf.truncated_normal_initializer(stddev=0.05, seed=1))
    conv = tf.nn.relu(tf.nn.conv2d(images, kernel, [1, 2, 2, 1], padding='SAME'))
  pool = tf.nn.max_pool(conv, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding='SAME')
  with tf.variable_scope('softmax_linear'):
    flat = tf.reshape(pool, [images.get_shape()[0].value, -1])
    weights = tf.get_variable('weights', [flat.get_shape()[1].value, 10],
                              initializer=tf.truncated_normal_initializer(stddev=0.01, seed=2))
    biases = tf.get_variable('biases', [10], initializer=tf.zeros_initializer())
    return tf.matmul(flat, weights) + biases


def average_gradients(tower_grads):
  averaged = []
  for grad_and_vars in zip(*tower_grads):
    grads = tf.stack([g for g, _ in grad_and_vars])
    averaged.append((tf.reduce_mean(grads, 0), grad_and_vars[0][1]))
  return averaged


def train():
  with tf.Graph().as_default(), tf.device('/cpu:0'):
    global_step = tf.train.get_or_create_global_step()
    opt = tf.train.GradientDescentOptimizer(0.05)

    # One reader for all towers.
    files = [os.path.join(FLAGS.data_dir, 'train-%05d.tfrecords' % i) for i in range(5)]
    graph_seed = tf.get_default_graph().seed

    def parse_record_2(serialized):
      tf.set_random_seed(graph_seed)  # the program's (TF < 1.15 gives this graph none)
      features = tf.parse_single_example(serialized, features=FEATURES)
      image = tf.reshape(tf.decode_raw(features['image_raw'], tf.uint8), [3, 32, 32])
      image = tf.cast(tf.transpose(image, [1, 2, 0]), tf.float32)
      image = tf.random_crop(image, [24, 24, 3])
      image = tf.image.per_image_standardization(tf.image.random_flip_left_right(image))
      label = tf.cast(features['label'], tf.int32)
      example_id = tf.cast(features['id'], tf.int32)
      return image, label, example_id

    tower_grads = []
    with tf.variable_scope(tf.get_variable_scope()):
      for i in range(FLAGS.num_gpus):
        with tf.device('/gpu:%d' % i):
          with tf.name_scope('tower_%d' % i):
            with tf.device('/cpu:0'):
              dataset_2 = tf.data.Dataset.from_tensor_slices(files)
              dataset_2 = dataset_2.shuffle(tf.size(files, out_type=tf.int64), seed=_FILE_ORDER_SEED)
              dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)
              # Each tower's shard: blocks of 64 records, before the per-record work.
              dataset_2 = dataset_2.batch(64)
              dataset_2 = dataset_2.shard(FLAGS.num_gpus, i)
              dataset_2 = dataset_2.apply(tf.contrib.data.unbatch())
              dataset_2 = dataset_2.map(parse_record_2, num_parallel_calls=2)
              dataset_2 = dataset_2.apply(tf.contrib.data.shuffle_and_repeat(200))
              dataset_2 = dataset_2.apply(tf.contrib.data.batch_and_drop_remainder(FLAGS.batch_size))
              dataset_2 = dataset_2.prefetch(1)
              images, labels, ids = dataset_2.make_one_shot_iterator().get_next()
            tf.add_to_collection('example_ids', ids)
            logits = inference(images)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=logits))
            tf.get_variable_scope().reuse_variables()
            tower_grads.append(opt.compute_gradients(loss))

    train_op = opt.apply_gradients(average_gradients(tower_grads), global_step=global_step)
    saver = tf.train.Saver(tf.global_variables())
    sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True))
    sess.run(tf.global_variables_initializer())
    for step in range(FLAGS.max_steps):
      _, loss_value = sess.run([train_op, loss])
      if step % 20 == 0:
        print('step %d, loss = %.2f' % (step, loss_value))
    saver.save(sess, os.path.join(FLAGS.train_dir, 'model.ckpt'), global_step=step)


def main(argv=None):
  tf.gfile.MakeDirs(FLAGS.train_dir)
  train()


if __name__ == '__main__':
  tf.app.run()
