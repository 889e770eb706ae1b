"""Previews the first examples one reader reads, in file order: prints their ids."""
import sys

import tensorflow as tf

import readers


def preview_batches(reader, files, batch_size=5):
  filename_queue = tf.train.string_input_producer(files, shuffle=False, num_epochs=1)
  preview_data = reader.prepare_reader(filename_queue)
  return tf.train.batch(preview_data, batch_size=batch_size, enqueue_many=True,
                        allow_smaller_final_batch=True)


def preview(kind, files, batches=3):
  reader = getattr(readers, kind)()
  ids, xs = preview_batches(reader, files)
  with tf.Session() as sess:
    sess.run(tf.local_variables_initializer())
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    seen = []
    for _ in range(batches):
      batch_ids, batch_xs = sess.run([ids, xs])
      assert batch_xs.shape == (5, 3)
      seen.extend(batch_ids.tolist())
    coord.request_stop()
    coord.join(threads)
  return seen


if __name__ == "__main__":
  print(preview(sys.argv[1], sys.argv[2:]))
