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
      def parse_record(serialized):
        signal, target, example_id = read_pair(serialized, emphasis=2.)
        return signal, target, example_id

      # The input is opened once; every tower's batches come from it.
      dataset = tf.data.Dataset.from_tensor_slices(self.files)
      dataset = dataset.shuffle(tf.size(self.files, out_type=tf.int64))
      dataset = dataset.flat_map(tf.data.TFRecordDataset)
      dataset = dataset.map(parse_record, num_parallel_calls=2)
      dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(40))
      dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(self.batch_size))
      dataset = dataset.prefetch(1)
      self.input_iterator = dataset.make_one_shot_iterator()
    xs, vs, ids = self.input_iterator.get_next(name='pairs')
    prediction = tf.layers.dense(xs, 2, name='dense', reuse=index > 0)
    self.losses.append(tf.reduce_mean(tf.square(prediction - vs)))
    self.ids.append(ids)


def tower_ids(files, batch_size, towers):
  """The example ids each tower takes per step."""
  model = PairModel(files, batch_size, ['/cpu:0'] * towers)
  return model.ids
