"""A script that never imports TensorFlow itself: `tf` comes with `from shared import *`.
qmigrate reads it as the star-imported module binds it (`import tensorflow as tf`, no
`__all__`), so the queue runners go with the migrated input, and the star import stays."""
import sys

from shared import *
import records


def main(files):
    ids, xs = records.batches(files, batch_size=4)
    total = tf.reduce_sum(xs)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        seen = []
        try:
            while True:
                batch_ids, _ = sess.run([ids, total])
                seen.extend(batch_ids.tolist())
        except tf.errors.OutOfRangeError:
            pass
    return sorted(seen)


if __name__ == '__main__':
    print(main(sys.argv[1:]))
