"""Previews the first examples one reader reads, in file order: prints their ids."""
import sys

import tensorflow as tf

import readers


def preview_batches(reader, files, batch_size=5):
  def parse_record(serialized):
    preview_data = reader.prepare_reader(serialized)
    return tuple(preview_data)

  dataset = tf.data.Dataset.from_tensor_slices(files)
  dataset = dataset.flat_map(reader.prepare_reader_records)
  dataset = dataset.map(parse_record)
  dataset = dataset.apply(tf.contrib.data.unbatch())
  dataset = dataset.repeat(1)
  dataset = dataset.batch(batch_size)
  dataset = dataset.prefetch(1)
  return list(dataset.make_one_shot_iterator().get_next())


def preview(kind, files, batches=3):
  reader = getattr(readers, kind)()
  ids, xs = preview_batches(reader, files)
  with tf.Session() as sess:
    sess.run(tf.local_variables_initializer())
    seen = []
    for _ in range(batches):
      batch_ids, batch_xs = sess.run([ids, xs])
      assert batch_xs.shape == (5, 3)
      seen.extend(batch_ids.tolist())
  return seen


if __name__ == "__main__":
  print(preview(sys.argv[1], sys.argv[2:]))
