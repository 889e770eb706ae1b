"""Train on MNIST TFRecords: the 'Reading data' how-to of TF 1.x, with a tflow alias."""
import argparse
import time

import tensorflow as tflow

FLAGS = None


def inputs(filenames, batch_size, num_epochs):
  """Reads input data num_epochs times (or forever if num_epochs is None)."""
  if not num_epochs:
    num_epochs = None
  with tflow.name_scope('input'):
    def parse_record(serialized_example):
      features = tflow.parse_single_example(
          serialized_example,
          features={
              'image_raw': tflow.FixedLenFeature([], tflow.string),
              'label': tflow.FixedLenFeature([], tflow.int64),
          })
      image = tflow.decode_raw(features['image_raw'], tflow.uint8)
      image.set_shape([784])
      image = tflow.cast(image, tflow.float32) * (1. / 255) - 0.5
      label = tflow.cast(features['label'], tflow.int32)
      return image, label

    # Collect examples into batch_size batches.
    dataset = tflow.data.Dataset.from_tensor_slices(filenames)
    dataset = dataset.flat_map(tflow.data.TFRecordDataset)
    dataset = dataset.map(parse_record, num_parallel_calls=2)
    dataset = dataset.repeat(num_epochs)
    dataset = dataset.apply(tflow.contrib.data.batch_and_drop_remainder(batch_size))
    dataset = dataset.prefetch(1)
    images, sparse_labels = dataset.make_one_shot_iterator().get_next()
    return images, sparse_labels


def run_training(filenames):
  with tflow.Graph().as_default():
    images, labels = inputs(filenames, batch_size=FLAGS.batch_size,
                            num_epochs=FLAGS.num_epochs)
    logits = tflow.layers.dense(images, 10)
    loss = tflow.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    train_op = tflow.train.GradientDescentOptimizer(0.01).minimize(loss)
    init_op = tflow.group(tflow.global_variables_initializer(),
                          tflow.local_variables_initializer())
    sess = tflow.Session()
    sess.run(init_op)

    try:
      step = 0
      while True:
        start_time = time.time()
        _, loss_value = sess.run([train_op, loss])
        duration = time.time() - start_time
        if step % 100 == 0:
          print('Step %d: loss = %.2f (%.3f sec)' % (step, loss_value, duration))
        step += 1
    except tflow.errors.OutOfRangeError:
      print('Done training for %d epochs, %d steps.' % (FLAGS.num_epochs, step))

    sess.close()


if __name__ == '__main__':
  parser = argparse.ArgumentParser()
  parser.add_argument('--num_epochs', type=int, default=2)
  parser.add_argument('--batch_size', type=int, default=100)
  parser.add_argument('files', nargs='+')
  FLAGS = parser.parse_args()
  run_training(FLAGS.files)
