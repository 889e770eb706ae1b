import tensorflow as tf  # TF 1.4


def build_input(files, batch_size):
    # ---- input pipeline -------------------------------------------------
    with tf.device('/cpu:0'):
        # NOTE(alice): the producer must stay on the CPU.
        fq = tf.train.string_input_producer(files)  # shuffled file order
        rdr = tf.TFRecordReader()  # plain, uncompressed records
        _, serialized = rdr.read(fq)

        # Parse one tf.train.Example.
        feats = tf.parse_single_example(serialized, {
            'v': tf.FixedLenFeature([2], tf.float32),  # two values
        })
        # TODO: normalise v
        v = feats['v']
        vs = tf.train.shuffle_batch([v], batch_size=batch_size,
                                    capacity=1000,  # queue capacity
                                    min_after_dequeue=500,
                                    num_threads=1)
    # ---------------------------------------------------------------------
    return vs
