"""Evaluates once over the examples, in file order: prints the ids and the sum of the features."""
import sys

import tensorflow as tf

import readers


def get_input_evaluation_tensors(reader, files, batch_size=8, num_readers=1):
  filename_queue = tf.train.string_input_producer(files, shuffle=False, num_epochs=1)
  eval_data = [reader.prepare_reader(filename_queue) for _ in range(num_readers)]
  return tf.train.batch_join(eval_data, batch_size=batch_size, capacity=3 * batch_size,
                             allow_smaller_final_batch=True, enqueue_many=True)


def evaluate(kind, files):
  reader = getattr(readers, kind)()
  ids, xs = get_input_evaluation_tensors(reader, files)
  with tf.Session() as sess:
    sess.run(tf.local_variables_initializer())
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    seen, total = [], 0.0
    try:
      while not coord.should_stop():
        batch_ids, batch_xs = sess.run([ids, xs])
        seen.extend(batch_ids.tolist())
        total += float(batch_xs.sum())
    except tf.errors.OutOfRangeError:
      pass
    finally:
      coord.request_stop()
    coord.join(threads)
  return seen, total


if __name__ == "__main__":
  print(evaluate(sys.argv[1], sys.argv[2:]))
