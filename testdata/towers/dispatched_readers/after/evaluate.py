"""Evaluates once over the examples, in file order: prints the ids and the sum of the features."""
import sys

import tensorflow as tf

import readers


def get_input_evaluation_tensors(reader, files, batch_size=8, num_readers=1):
  def parse_record(serialized):
    eval_data = reader.prepare_reader(serialized)
    return tuple(tf.convert_to_tensor(part) if isinstance(part, list) else part for part in eval_data)

  dataset = tf.data.Dataset.from_tensor_slices(files)
  dataset = dataset.interleave(reader.prepare_reader_records, cycle_length=num_readers)
  dataset = dataset.map(parse_record, num_parallel_calls=num_readers)
  dataset = dataset.apply(tf.contrib.data.unbatch())
  dataset = dataset.repeat(1)
  dataset = dataset.batch(batch_size)
  dataset = dataset.prefetch(1)
  return list(dataset.make_one_shot_iterator().get_next())


def evaluate(kind, files):
  reader = getattr(readers, kind)()
  ids, xs = get_input_evaluation_tensors(reader, files)
  with tf.Session() as sess:
    sess.run(tf.local_variables_initializer())
    seen, total = [], 0.0
    try:
      while True:
        batch_ids, batch_xs = sess.run([ids, xs])
        seen.extend(batch_ids.tolist())
        total += float(batch_xs.sum())
    except tf.errors.OutOfRangeError:
      pass
  return seen, total


if __name__ == "__main__":
  print(evaluate(sys.argv[1], sys.argv[2:]))
