import tensorflow as tf  # TF 1.4


def build_input(files, batch_size):
    # ---- input pipeline -------------------------------------------------
    with tf.device('/cpu:0'):
        def parse_record(serialized):
            # Parse one tf.train.Example.
            feats = tf.parse_single_example(serialized, {
                'v': tf.FixedLenFeature([2], tf.float32),  # two values
            })
            # TODO: normalise v
            v = feats['v']
            return v

        # NOTE(alice): the producer must stay on the CPU.
        # shuffled file order
        # plain, uncompressed records
        dataset = tf.data.Dataset.from_tensor_slices(files)
        dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
        dataset = dataset.map(parse_record)
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(500))
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
        dataset = dataset.prefetch(1)
        vs = dataset.make_one_shot_iterator().get_next()
    # ---------------------------------------------------------------------
    return vs
