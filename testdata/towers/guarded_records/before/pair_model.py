"""A two-tower model: the first tower's call also opens the input, every tower batches its own."""
import tensorflow as tf

from pair_records import read_pair


class PairModel(object):

  def __init__(self, files, batch_size, devices):
    self.files = files
    self.batch_size = batch_size
    self.devices = devices
    self.losses = []
    self.ids = []
    for index, device in enumerate(devices):
      with tf.device(device), tf.name_scope('tower_%d' % index):
        self.build_tower(index)

  def build_tower(self, index):
    if index == 0:
      # The input is opened once; every tower's batches come from it.
      filename_queue = tf.train.string_input_producer(self.files)
      self.signal, self.target, self.example_id = read_pair(filename_queue, emphasis=2.)
    xs, vs, ids = tf.train.shuffle_batch(
        [self.signal, self.target, self.example_id],
        batch_size=self.batch_size,
        num_threads=2,
        capacity=40 + 3 * self.batch_size,
        min_after_dequeue=40,
        name='pairs')
    prediction = tf.layers.dense(xs, 2, name='dense', reuse=index > 0)
    self.losses.append(tf.reduce_mean(tf.square(prediction - vs)))
    self.ids.append(ids)


def tower_ids(files, batch_size, towers):
  """The example ids each tower takes per step."""
  model = PairModel(files, batch_size, ['/cpu:0'] * towers)
  return model.ids
