"""Trains on the examples the reader class named on the command line reads: its records from
several readers, shuffled together; prints the ids it saw, sorted."""
import sys

import tensorflow as tf

import readers


def get_input_data_tensors(reader, files, batch_size=4, num_epochs=None, num_readers=2):
  """The shuffled batches of every reader's records, `num_epochs` times over the files."""
  with tf.name_scope("train_input"):
    filename_queue = tf.train.string_input_producer(files, num_epochs=num_epochs, shuffle=True)
    training_data = [reader.prepare_reader(filename_queue) for _ in range(num_readers)]
    return tf.train.shuffle_batch_join(training_data, batch_size=batch_size,
                                       capacity=batch_size * 5, min_after_dequeue=batch_size,
                                       allow_smaller_final_batch=True, enqueue_many=True)


def main(kind, files):
  reader = getattr(readers, kind)()
  ids, xs = get_input_data_tensors(reader, files, num_epochs=2)
  total = tf.reduce_sum(xs)
  with tf.Session() as sess:
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    seen = []
    try:
      while not coord.should_stop():
        batch_ids, _ = sess.run([ids, total])
        seen.extend(batch_ids.tolist())
    except tf.errors.OutOfRangeError:
      pass
    finally:
      coord.request_stop()
    coord.join(threads)
  return sorted(seen)


if __name__ == "__main__":
  print(main(sys.argv[1], sys.argv[2:]))
