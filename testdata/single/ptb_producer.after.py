"""The PTB language model's reader (TF 1.x models/tutorials/rnn/ptb/reader.py): a step index from
range_input_producer slices the next window of each row; no batching queue at all."""
import tensorflow as tf


def ptb_producer(raw_data, batch_size, num_steps, name=None):
  """Iterate on the raw PTB data: pairs of (input, target) windows, one step per dequeue."""
  with tf.name_scope(name, "PTBProducer", [raw_data, batch_size, num_steps]):
    raw_data = tf.convert_to_tensor(raw_data, name="raw_data", dtype=tf.int32)

    data_len = tf.size(raw_data)
    batch_len = data_len // batch_size
    data = tf.reshape(raw_data[0 : batch_size * batch_len],
                      [batch_size, batch_len])

    epoch_size = (batch_len - 1) // num_steps
    assertion = tf.assert_positive(
        epoch_size,
        message="epoch_size == 0, decrease batch_size or num_steps")
    with tf.control_dependencies([assertion]):
      epoch_size = tf.identity(epoch_size, name="epoch_size")

    dataset = tf.data.Dataset.range(tf.cast(epoch_size, tf.int64))
    dataset = dataset.repeat()
    iterator = dataset.make_one_shot_iterator()
    with tf.control_dependencies([assertion]):
      i = tf.cast(iterator.get_next(), tf.int32)
    x = tf.strided_slice(data, [0, i * num_steps],
                         [batch_size, (i + 1) * num_steps])
    x.set_shape([batch_size, num_steps])
    y = tf.strided_slice(data, [0, i * num_steps + 1],
                         [batch_size, (i + 1) * num_steps + 1])
    y.set_shape([batch_size, num_steps])
    return x, y
