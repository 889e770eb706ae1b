"""Data bugs of multi-tower input that the migration exposes: reported even when nothing is rewritten."""
from qmigrate.diagnostics import Safety
from qmigrate.rules.base import Example, Rule, example_source


# The programs the examples migrate, once without and once with --unsafe.
_SHARED_BATCH = example_source("""
    import tensorflow as tf

    def inputs(files):
        queue = tf.train.string_input_producer(files)
        reader = tf.TFRecordReader()
        _, record = reader.read(queue)
        return tf.train.batch([record], batch_size=8)

    def towers(files):
        records = inputs(files)
        sizes = []
        for i in range(4):
            with tf.device('/gpu:%d' % i):
                sizes.append(tf.size(records))
        return sizes
    """)

_PER_TOWER = example_source("""
    import tensorflow as tf

    def inputs(files):
        queue = tf.train.string_input_producer(files)
        reader = tf.TFRecordReader()
        _, record = reader.read(queue)
        return tf.train.batch([record], batch_size=8)

    def towers(files):
        sizes = []
        for i in range(4):
            with tf.device('/gpu:%d' % i):
                records = inputs(files)
                sizes.append(tf.size(records))
        return sizes
    """)


class SharedBatchAcrossTowers(Rule):
    """One batch tensor consumed by every tower: all towers train on the same examples.

    ## Why
    `images, labels = inputs()` built once before `for i in range(num_gpus)` and used inside it
    gives every tower the same batch at every step: N times the compute for one batch's gradient.

    ## Fix safety
    Unsafe (applied with `--unsafe`): each tower gets its own iterator on its own shard, so each
    step consumes N batches instead of one. That is what multi-tower code means to do, but the
    number of examples per step, and so the epochs, change.

    ## Limitations
    The batch must come from an input function whose pipeline qmigrate migrates.
    """

    code = "QM901"
    safety = Safety.UNSAFE
    message = "every tower trains on the same batch: the input is built once, outside the tower loop"
    advice = "give each tower its own shard (qmigrate --unsafe does), or build the input per tower"
    examples = (
        Example(
            before=_SHARED_BATCH,
            after=example_source("""
            import tensorflow as tf

            def inputs(files):
                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(8))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()

            def towers(files):
                records = inputs(files)
                sizes = []
                for i in range(4):
                    with tf.device('/gpu:%d' % i):
                        sizes.append(tf.size(records))
                return sizes
            """),
        ),
        Example(
            before=_SHARED_BATCH,
            after=example_source("""
            import tensorflow as tf
            import random

            # One seed for the whole process, so that every shard shuffles the files the same way.
            _FILE_ORDER_SEED = random.randint(0, 2 ** 31 - 1)

            def inputs(files, num_shards=1, shard_index=0):
                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64), seed=_FILE_ORDER_SEED)
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                # Each tower's shard: blocks of 64 records, before the per-record work.
                dataset = dataset.batch(64)
                dataset = dataset.shard(num_shards, shard_index)
                dataset = dataset.apply(tf.contrib.data.unbatch())
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(8))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()

            def towers(files):
                sizes = []
                for i in range(4):
                    with tf.device('/gpu:%d' % i):
                        with tf.device('/cpu:0'):
                            records = inputs(files, num_shards=4, shard_index=i)
                        sizes.append(tf.size(records))
                return sizes
            """),
            unsafe=True,
        ),
    )


class PerTowerPipelines(Rule):
    """Every tower calls the input function itself: each tower reads the whole data set.

    ## Why
    Each call builds a separate pipeline over all the files, so in one "epoch" every example is
    seen once per tower. The migration keeps that meaning (each tower still gets its own full
    dataset); it is reported because it is rarely what was meant.

    ## Fix safety
    Unsafe (applied with `--unsafe`): each tower's call reads only its shard
    (`num_shards=num_towers, shard_index=i`), so every example reaches one tower per epoch.

    ## Limitations
    The input function must be one whose pipeline qmigrate migrates.
    """

    code = "QM902"
    safety = Safety.UNSAFE
    message = "every tower builds its own input pipeline over the whole data set"
    advice = "shard the input by tower (qmigrate --unsafe does), so each example reaches one tower per epoch"
    examples = (
        Example(
            before=_PER_TOWER,
            after=example_source("""
            import tensorflow as tf

            def inputs(files):
                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(8))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()

            def towers(files):
                sizes = []
                for i in range(4):
                    with tf.device('/gpu:%d' % i):
                        records = inputs(files)
                        sizes.append(tf.size(records))
                return sizes
            """),
        ),
        Example(
            before=_PER_TOWER,
            after=example_source("""
            import tensorflow as tf
            import random

            # One seed for the whole process, so that every shard shuffles the files the same way.
            _FILE_ORDER_SEED = random.randint(0, 2 ** 31 - 1)

            def inputs(files, num_shards=1, shard_index=0):
                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64), seed=_FILE_ORDER_SEED)
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                # Each tower's shard: blocks of 64 records, before the per-record work.
                dataset = dataset.batch(64)
                dataset = dataset.shard(num_shards, shard_index)
                dataset = dataset.apply(tf.contrib.data.unbatch())
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(8))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()

            def towers(files):
                sizes = []
                for i in range(4):
                    with tf.device('/gpu:%d' % i):
                        records = inputs(files, num_shards=4, shard_index=i)
                        sizes.append(tf.size(records))
                return sizes
            """),
            unsafe=True,
        ),
    )
