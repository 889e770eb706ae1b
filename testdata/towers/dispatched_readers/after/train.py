"""Trains on the examples the reader class named on the command line reads: its records from
several readers, shuffled together; prints the ids it saw, sorted."""
import sys

import tensorflow as tf

import readers


def get_input_data_tensors(reader, files, batch_size=4, num_epochs=None, num_readers=2):
  """The shuffled batches of every reader's records, `num_epochs` times over the files."""
  with tf.name_scope("train_input"):
    def parse_record(serialized):
      training_data = reader.prepare_reader(serialized)
      return tuple(tf.convert_to_tensor(part) if isinstance(part, list) else part for part in training_data)

    dataset = tf.data.Dataset.from_tensor_slices(files)
    dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
    dataset = dataset.interleave(reader.prepare_reader_records, cycle_length=num_readers)
    dataset = dataset.map(parse_record, num_parallel_calls=num_readers)
    dataset = dataset.apply(tf.contrib.data.unbatch())
    dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(batch_size, num_epochs))
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(1)
    return list(dataset.make_one_shot_iterator().get_next())


def main(kind, files):
  reader = getattr(readers, kind)()
  ids, xs = get_input_data_tensors(reader, files, num_epochs=2)
  total = tf.reduce_sum(xs)
  with tf.Session() as sess:
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    seen = []
    try:
      while True:
        batch_ids, _ = sess.run([ids, total])
        seen.extend(batch_ids.tolist())
    except tf.errors.OutOfRangeError:
      pass
  return sorted(seen)


if __name__ == "__main__":
  print(main(sys.argv[1], sys.argv[2:]))
