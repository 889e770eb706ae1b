"""A slice producer's output list read by index in each thread's copy of the per-record code
(`rows[0]`, `rows[2]`), batch_join giving `shapes=` for an item of that list, and a name the
per-record code binds used again, for a Python string, after the batches (`name = out_path`,
then `with open(name, ...)`): the rows become a dataset, each item's shape set in the map function."""
import json

import tensorflow as tf


def file_sizes(paths, labels, batch_size, out_path):
    ids = list(range(len(paths)))
    rows = tf.train.slice_input_producer([paths, labels, ids], num_epochs=1, shuffle=False)
    per_thread = []
    for _ in range(3):
        name = rows[0]
        contents = tf.read_file(name)
        size = tf.size(tf.string_split([contents], delimiter=""))
        per_thread.append([size, rows[1], rows[2]])
    sizes, kinds, indices = tf.train.batch_join(per_thread, batch_size=batch_size, shapes=[(), (), ()],
                                                allow_smaller_final_batch=True)
    found = {}
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            while True:
                for size, kind, index in zip(*sess.run([sizes, kinds, indices])):
                    found[int(index)] = [int(size), int(kind)]
        except tf.errors.OutOfRangeError:
            pass
        name = out_path
        with open(name, "w") as handle:
            json.dump(found, handle, sort_keys=True)
    return [found[index] for index in sorted(found)]
