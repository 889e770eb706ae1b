"""Prefetching: slim's `prefetch_queue`, the batch queue that multi-GPU towers dequeue from."""
from qmigrate.rules.base import Example, Rule, example_source


class PrefetchQueue(Rule):
    """slim's `prefetch_queue` dequeued in a tower loop becomes one sharded iterator per tower.

    ## Why
    The prefetch queue lets several towers take batches from one pipeline. With tf.data each
    tower gets its own iterator on its own shard (`shard(num_towers, i)` before the per-record
    work, so no work is repeated), built on the CPU where the dequeue was.

    ## Fix safety
    Safe. Every example reaches exactly one tower once per epoch (the queue only promised
    one tower per dequeue, with epochs mixed by the shuffle queue). The input function gains
    `num_shards=1, shard_index=0` keyword parameters, so its other callers (eval) are unchanged;
    functions between the tower loop and the pipeline pass them on. All shards read the files
    in one order (a per-process seed), and each reads every record but maps only its own.

    With `--tower-strategy shared-iterator` the towers instead take batches from one iterator
    (the input function gains `shared_iterators=None, prefetch_batches=1`; the towers pass the dict
    and the prefetch queue's capacity, which the one pipeline prefetches), which is the queue's
    meaning exactly.

    A prefetch queue built in the same block as a batching the migration turns into a dataset
    (slim's image trainer: the batch, code on the batch such as `one_hot_encoding`, then the queue,
    handed with a clone function to `model_deploy.create_clones`) becomes that dataset's iterator:
    the code on the batch becomes a map over batches, the dataset prefetches the queue's
    capacity, and every `dequeue()` becomes `get_next()` (each takes the next batch, as each
    dequeue did). Only when every use of the queue is a dequeue, in the function or in a clone
    function handed to a function that only calls it with its arguments
    (qmigrate/prefetched_batches.py has the exact conditions); else the queue stays, with the reason.

    A `shuffle_batch` behind the queue was one shuffle buffer for all towers: each shard keeps
    `min_after_dequeue // num_shards` of it (same memory and first fill), and its share of the
    batcher's threads, `num_threads // num_shards` parallel calls in its map. Each iterator
    prefetches one batch where the queue held `capacity` batches for all towers; a deeper
    prefetch measured no faster (see bench/epoch_stall_bench.py).

    ## Limitations
    The tower loop must be `for i in range(n)` (or `xrange`) or `for i, device in
    enumerate(devices)` with a `tf.device` inside, and the input must come from a function in the
    files migrated together whose pipeline qmigrate migrates. `for device in devices:` has no
    index to shard by: it is reported with that reason.
    """

    code = "QM401"
    names = ("tensorflow.contrib.slim.prefetch_queue.prefetch_queue",)  # also its private module's spelling
    signature = ("tensors", "capacity", "num_threads", "dynamic_pad", "shared_name", "name")
    message = "slim prefetch_queue feeds towers from a queue"
    advice = "give each tower its own iterator on its own shard of a tf.data pipeline"
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            slim = tf.contrib.slim

            def inputs(files, batch_size):
                queue = tf.train.string_input_producer(files)
                reader = tf.TFRecordReader()
                _, record = reader.read(queue)
                x = tf.parse_single_example(record, {'x': tf.FixedLenFeature([], tf.float32)})['x']
                xs = tf.train.batch([x], batch_size=batch_size)
                return xs

            def towers(files, num_gpus):
                xs = inputs(files, 32)
                batch_queue = slim.prefetch_queue.prefetch_queue([xs], capacity=2 * num_gpus)
                losses = []
                for i in range(num_gpus):
                    with tf.device('/gpu:%d' % i):
                        x_batch = batch_queue.dequeue()
                        losses.append(tf.reduce_mean(x_batch))
                return losses
            """),
            after=example_source("""
            import tensorflow as tf
            import random

            # One seed for the whole process, so that every shard shuffles the files the same way.
            _FILE_ORDER_SEED = random.randint(0, 2 ** 31 - 1)

            def inputs(files, batch_size, num_shards=1, shard_index=0):
                def parse_record(record):
                    x = tf.parse_single_example(record, {'x': tf.FixedLenFeature([], tf.float32)})['x']
                    return x

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64), seed=_FILE_ORDER_SEED)
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                # Each tower's shard: blocks of 64 records, before the per-record work.
                dataset = dataset.batch(64)
                dataset = dataset.shard(num_shards, shard_index)
                dataset = dataset.apply(tf.contrib.data.unbatch())
                dataset = dataset.map(parse_record)
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
                dataset = dataset.prefetch(1)
                xs = dataset.make_one_shot_iterator().get_next()
                return xs

            def towers(files, num_gpus):
                losses = []
                for i in range(num_gpus):
                    with tf.device('/gpu:%d' % i):
                        with tf.device('/cpu:0'):
                            x_batch = inputs(files, 32, num_shards=num_gpus, shard_index=i)
                        losses.append(tf.reduce_mean(x_batch))
                return losses
            """),
        ),
    )
