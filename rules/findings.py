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


class ProducersAlignedBySeed(Rule):
    """Two input producers that shuffle with the same seed to keep their elements paired.

    ## Why
    `images = string_input_producer(image_files, seed=1)` beside
    `labels = string_input_producer(label_files, seed=1)` pairs file i with file i only while
    both queues draw the same random stream and are dequeued in lockstep: another capacity,
    another thread count, a different list length, or migrating one of them but not the other,
    and images meet the wrong labels without any error.

    ## Fix safety
    Manual: reported, never changed. Both producers are otherwise migrated or reported as usual;
    batched together by one call, their chains are zipped, each keeping its seed: two tf.data
    shuffles of one size and seed draw the same permutations, so the pairing carries over, and
    the zip keeps the lockstep no batching thread can break. The pairing still rests on the seed.

    ## Limitations
    Seeds are compared as written (the same literal or name); producers in different modules
    are not compared.
    """

    code = "QM903"
    safety = Safety.MANUAL
    message = "this producer shuffles with the same seed as another to keep their elements paired"
    advice = ("slice both from one producer (slice_input_producer([a, b])) or, in tf.data, "
              "Dataset.zip((a, b)) and shuffle once, so the pairing cannot drift")
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf

            def paired(image_files, label_files):
                images = tf.train.string_input_producer(image_files, seed=1)
                labels = tf.train.string_input_producer(label_files, seed=1)
                image_reader = tf.WholeFileReader()
                label_reader = tf.TextLineReader()
                _, image = image_reader.read(images)
                _, label = label_reader.read(labels)
                return tf.train.batch([image, label], batch_size=16)
            """),
            after=example_source("""
            import tensorflow as tf

            def paired(image_files, label_files):
                image_records = tf.data.Dataset.from_tensor_slices(image_files)
                image_records = image_records.shuffle(tf.size(image_files, out_type=tf.int64), seed=1)
                image_records = image_records.map(tf.read_file)
                image_records = image_records.repeat()
                label_records = tf.data.Dataset.from_tensor_slices(label_files)
                label_records = label_records.shuffle(tf.size(label_files, out_type=tf.int64), seed=1)
                label_records = label_records.flat_map(tf.data.TextLineDataset)
                label_records = label_records.repeat()
                # One record of each chain per element, in order (a batching queue with several threads could
                # pair records of different runs); the zip ends with the first chain that ends.
                dataset = tf.data.Dataset.zip((image_records, label_records))
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(16))
                dataset = dataset.prefetch(1)
                return list(dataset.make_one_shot_iterator().get_next())
            """),
        ),
    )


class BatchNotDivisibleAcrossTowers(Rule):
    """A batch split across towers with `tf.split` whose size the towers do not divide.

    ## Why
    `tf.split(images, num_gpus)` needs the batch size to be a multiple of the number of towers:
    a batch of 100 over 3 towers fails at run time, and with `allow_smaller_final_batch=True`
    the last, smaller batch can fail where every full one worked.

    ## Fix safety
    Manual: reported, never changed.

    ## Limitations
    Sizes are read from literals and module-level constants; flags are not evaluated.
    """

    code = "QM904"
    safety = Safety.MANUAL
    message = "this batch is split across towers that do not divide it"
    advice = ("make the batch size a multiple of the number of towers, or give each tower its own "
              "shard of a tf.data pipeline with its own batch")
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf

            BATCH_SIZE = 100
            NUM_GPUS = 3

            def tower_inputs(images):
                batch = tf.train.batch([images], batch_size=BATCH_SIZE, enqueue_many=True)
                return tf.split(batch, NUM_GPUS)
            """),
        ),
    )


class PerTowerPlaceholders(Rule):
    """Each tower fed through its own placeholder with `feed_dict`: no queue, but no pipeline either.

    ## Why
    A placeholder per tower (`x = tf.placeholder(...)` inside the tower loop) feeds every step
    from Python through `feed_dict`, copying each batch through the Python interpreter while the
    devices wait. A tf.data pipeline sharded per tower overlaps input with compute.

    ## Fix safety
    A note: nothing is changed.

    ## Limitations
    Only placeholders created inside a tower loop (`for i in range(n):` with `tf.device`) are shown.
    """

    code = "QM905"
    safety = Safety.MANUAL
    note = True
    message = "each tower is fed through its own placeholder with feed_dict"
    advice = ("one tf.data pipeline (from_tensor_slices(arrays) or from_generator), "
              "dataset.shard(num_towers, i) in tower i, and iterator.get_next() in place of the placeholder")
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf

            def build(num_gpus, model):
                inputs, losses = [], []
                for i in range(num_gpus):
                    with tf.device('/gpu:%d' % i):
                        images = tf.placeholder(tf.float32, [None, 32, 32, 3])
                        inputs.append(images)
                        losses.append(model(images))
                return inputs, losses
            """),
        ),
    )


class UntracedTowerInput(Rule):
    """A tower loop whose input qmigrate cannot trace, in a run with queue-based input (left or migrated).

    ## Why
    A module with no queue code of its own may build the towers that consume a queue:
    `for i in range(num_gpus): with tf.device('/gpu:%d' % i): loss = self.graph_def(gpu_id=i)`, or
    `self.build_tower(self.images[i], ...)` over per-tower batches made elsewhere. qmigrate links a
    tower loop to its pipeline only through direct calls of input functions, so such a loop is
    reached by no link; when the queue it reads is migrated by hand, nothing else would say that
    each tower must get its own iterator over its own shard.

    ## Fix safety
    A note: nothing in this module changes. It is reported while some file of the same run still
    has queue code that qmigrate left (the message names the first), and, once the run migrates
    all of it, as a reminder to check that each tower reads its own batches (the message names
    the first call migrated); only for modules with no queue code of their own (those get their
    own findings) that no tower link reached.

    ## Limitations
    The loop is recognised by its shape alone: a `with ....device(...)` in its body naming the
    device by the loop variable (`'/gpu:%d' % i`, `devices[i]`, not `v.device`), and variables
    shared between iterations (`reuse=`, `reuse_variables()`) or a scope named "tower". Device
    loops that only move or reduce tensors are not towers. What the towers read is not followed,
    which is the point; the note names what it can see: the lists the towers index by the loop
    variable (`self.images[i]`), the constructor or function parameter they come from, and what the
    run's calls pass there, without proving what those lists hold.
    """

    code = "QM907"
    safety = Safety.MANUAL
    note = True
    message = "a tower loop whose input qmigrate cannot trace, while queue-based input is left in this run"
    advice = ("when that input is migrated, give each tower its own iterator over its own shard "
              "(`dataset.shard(num_towers, index)`), or every tower trains on the same examples")
    examples = (
        Example(
            filename="trainer.py",
            before=example_source("""
            import tensorflow as tf

            def tower_losses(model, num_gpus):
                losses = []
                for gpu in range(num_gpus):
                    with tf.device('/gpu:%d' % gpu), tf.variable_scope('model', reuse=gpu > 0):
                        losses.append(model.loss(gpu_id=gpu))
                return losses
            """),
            companions=(("feeder.py", example_source("""
            import tensorflow as tf

            class Feeder(object):
                def __init__(self, sess):
                    self.images = tf.placeholder(tf.float32, [None, 28, 28])
                    self.queue = tf.FIFOQueue(64, [tf.float32], shapes=[[28, 28]])
                    self.enqueue = self.queue.enqueue_many([self.images])
                    self.sess = sess

                def feed(self, batches):
                    for batch in batches:
                        self.sess.run(self.enqueue, feed_dict={self.images: batch})

                def dequeue(self, batch_size):
                    return self.queue.dequeue_many(batch_size)
            """)),),
        ),
    )

    @classmethod
    def message_at(cls, header: str, where: str, count: int, reads=None) -> str:
        """The note for one loop, naming the first queue call left in the run (and, with `reads`
        (tower_reads.TowerReads), the lists its towers index)."""
        others = " and %d more" % (count - 1) if count > 1 else ""
        if reads is not None and reads.passed:
            return cls._lists_note(header, reads, "while queue-based input is left in this run (%s%s);" % (
                where, others), "when that input is migrated, make %s one batch per tower" % (
                    "it" if len(reads.lists) == 1 else "each"), "")
        return ("`%s`: a tower loop whose input qmigrate cannot trace%s, while queue-based input is left "
                "in this run (%s%s); %s" % (header, cls._reading(reads), where, others, cls.advice))

    @classmethod
    def message_after_migration(cls, header: str, where: str, count: int, reads=None) -> str:
        """The note for one loop when the run migrated all of its queue input, naming the first call
        (and, with `reads`, the lists its towers index)."""
        others = " and %d more" % (count - 1) if count > 1 else ""
        if reads is not None and reads.passed:
            return cls._lists_note(header, reads, "in a run that migrated queue-based input (%s%s) without "
                                   "linking it to this loop:" % (where, others), "check that %s a list of "
                                   "per-tower batches" % ("it is" if len(reads.lists) == 1 else "each is"),
                                   ", as a migrated loop that batches once per shard builds")
        return ("`%s`: a tower loop whose input qmigrate cannot trace%s, in a run that migrated queue-based "
                "input (%s%s) without linking it to this loop; check that each tower reads its own batches "
                "(its own iterator over its own shard, `dataset.shard(num_towers, index)`, or its own element "
                "of a list of per-tower batches), or every tower trains on the same examples" % (
                    header, cls._reading(reads), where, others))

    @staticmethod
    def _reading(reads) -> str:
        """` (its towers read element i of `self.losses` (Model.build() fills it))`, or ""."""
        return " (its towers read %s)" % reads.describe() if reads is not None else ""

    @classmethod
    def _lists_note(cls, header: str, reads, run: str, wanted: str, example: str) -> str:
        """The note for a loop whose towers index lists passed to their class or function."""
        return ("`%s`: a tower loop whose towers each read %s, %s qmigrate does not prove what those lists hold; "
                "%s, each from its own iterator over its own shard (`dataset.shard(num_towers, index)`%s)%s, or "
                "towers train on the same examples" % (header, reads.describe(), run, wanted, example,
                                                       cls._as_many(reads)))

    @staticmethod
    def _as_many(reads) -> str:
        if not reads.count:
            return ""
        return (", with as many elements as the loop has towers (`%s`; the examples of a shard no tower "
                "reads are lost)" % reads.count)


class ClosedQueueMessageExpected(Rule):
    """Code that expects the error message of a closed queue, which a tf.data iterator never raises.

    ## Why
    Tests of an input module often drain its queue and check how it ends:
    `with self.assertRaisesOpError('is closed and has insufficient elements'): sess.run(batch)`.
    Once the pipeline is a dataset, the run after the last batch raises `OutOfRangeError` with
    the iterator's message, "End of sequence": the data is the same, the assertion fails.

    ## Fix safety
    Manual: reported, never changed. qmigrate cannot tell from the literal which pipeline the
    assertion drains, so it does not rewrite a test's expectation.

    ## Limitations
    Found as the literal text of the message (in one string or an implicit concatenation), in
    files that hold queue code, migrated or not; a message built another way is not seen.
    """

    code = "QM908"
    safety = Safety.MANUAL
    message = "this expects the error message of a closed queue, which a tf.data iterator does not raise"
    advice = ("once the pipeline it drains reads from tf.data, expect tf.errors.OutOfRangeError with the "
              "iterator's message, 'End of sequence'")
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf

            def check_last_batch(test, files):
                queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
                reader = tf.TFRecordReader()
                _, record = reader.read(queue)
                batch = tf.train.batch([record], batch_size=8)
                with tf.Session() as sess:
                    sess.run(tf.local_variables_initializer())
                    with tf.contrib.slim.queues.QueueRunners(sess):
                        sess.run(batch)
                        with test.assertRaisesOpError('is closed and has insufficient elements'):
                            sess.run(batch)
            """),
            after=example_source("""
            import tensorflow as tf

            def check_last_batch(test, files):
                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.repeat(1)
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(8))
                dataset = dataset.prefetch(1)
                batch = dataset.make_one_shot_iterator().get_next()
                with tf.Session() as sess:
                    sess.run(tf.local_variables_initializer())
                    sess.run(batch)
                    with test.assertRaisesOpError('is closed and has insufficient elements'):
                        sess.run(batch)
            """),
        ),
    )


class UnseenRecordFunction(Rule):
    """Per-record code moved into a map function calls a function made at run time, which qmigrate cannot see.

    ## Why
    The migration moves the per-record code into `dataset.map`, whose function has a graph of its
    own. A function the code calls through a variable (`preprocess = factory.get(name)`, slim's
    `image_preprocessing_fn = preprocessing_factory.get_preprocessing(...)`) or a parameter is made
    at run time, so qmigrate cannot read it. If it makes a summary or a collection entry
    (slim's Inception preprocessing makes image summaries), that is made in the map function's
    graph: the program's `merge_all()` and `get_collection()` no longer see it, with no error. If
    it makes a variable, the one-shot iterator fails when it is made. Functions of the module, and
    of modules beside it, are read, and such code keeps its queue instead (QM301 says why). So is a
    factory of the run that made the function (`fn = get_preprocessing(name)`): the functions it
    returns by name or from a dict literal, and a closure calling `table[key].method(...)` over a
    dict of modules (slim's preprocessing_factory); if one of them makes any of those, the chain
    stays with that reason, and when every one was read (no closure) and makes none, no note.

    ## Fix safety
    A note beside the migration: the code is migrated, and the note says which call to check.

    ## Limitations
    Only calls of a name bound in the block to the result of a call, or of a parameter of the
    function, are noted; a method called on an object (`self.preprocess(image)`) is not.
    """

    code = "QM909"
    safety = Safety.MANUAL
    note = True
    message = "the per-record code, now in a map function, calls a function made at run time"
    advice = ("check that it makes no summary, collection entry or variable (in the map function a summary or "
              "collection entry leaves the program's graph without an error, a variable fails when the iterator "
              "is made); make them on the batch, or before the pipeline")
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf

            def inputs(files, batch_size, make_preprocessing):
                preprocess = make_preprocessing(training=True)
                queue = tf.train.string_input_producer(files)
                _, value = tf.WholeFileReader().read(queue)
                image = tf.image.resize_images(tf.image.decode_png(value, channels=3), [32, 32])
                image = preprocess(image)
                return tf.train.batch([image], batch_size)
            """),
            after=example_source("""
            import tensorflow as tf

            def inputs(files, batch_size, make_preprocessing):
                preprocess = make_preprocessing(training=True)
                graph_seed = tf.get_default_graph().seed

                def parse_record(value):
                    tf.set_random_seed(graph_seed)  # the program's (TF < 1.15 gives this graph none)
                    image = tf.image.resize_images(tf.image.decode_png(value, channels=3), [32, 32])
                    image = preprocess(image)
                    return image

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
                dataset = dataset.map(tf.read_file)
                dataset = dataset.map(parse_record)
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
    )


_RECORD_SUMMARY = example_source("""
import tensorflow as tf

def distort(image):
    image = tf.image.random_flip_left_right(image)
    tf.summary.image('distorted', tf.expand_dims(image, 0))
    return image

def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files)
    _, value = tf.WholeFileReader().read(queue)
    image = tf.image.resize_images(tf.image.decode_png(value, channels=3), [32, 32])
    image = distort(image)
    return tf.train.batch([image], batch_size)
""")


class LostSummary(Rule):
    """Per-record code migrated with --unsafe makes a summary, now in the map function's graph.

    ## Why
    The migration moves the per-record code into `dataset.map`, whose function has a graph of its
    own. A summary it makes (`tf.summary.image` on a distorted example, as Inception's and slim's
    preprocessing do for the first decoding thread) is made in that graph: the program's
    `merge_all()` no longer sees it, with no error. By default such code keeps its queue (QM301
    and its kin say why, and this finding names the summary); with `--unsafe` it is migrated, and
    this finding, fixed, names for each per-record call the first summary it makes (directly or
    in what it calls) that TensorBoard will no longer show. Training reads the same examples: a
    summary only reports.

    ## Fix safety
    Unsafe (applied with `--unsafe`): the pipeline and the examples are the same, the summaries
    made per record are no longer written. A collection entry or a variable made per record still
    keeps the queue (a collection may be read back; a variable fails in a map function).

    ## Limitations
    Summaries written in the per-record code itself, and those of the functions it calls that
    qmigrate reads (of the module, of modules beside it, and those a factory of the run gives).
    """

    code = "QM910"
    safety = Safety.UNSAFE
    message = "the per-record code makes a summary: in a map function, its graph keeps it to itself"
    advice = ("make the summary on the batch (after get_next()), or from a few examples before the pipeline; "
              "migrated with --unsafe as it is, TensorBoard no longer shows it")
    examples = (
        Example(
            before=_RECORD_SUMMARY,
        ),
        Example(
            unsafe=True,
            before=_RECORD_SUMMARY,
            after=example_source("""
            import tensorflow as tf

            def distort(image):
                image = tf.image.random_flip_left_right(image)
                tf.summary.image('distorted', tf.expand_dims(image, 0))
                return image

            def inputs(files, batch_size):
                graph_seed = tf.get_default_graph().seed

                def parse_record(value):
                    tf.set_random_seed(graph_seed)  # the program's (TF < 1.15 gives this graph none)
                    image = tf.image.resize_images(tf.image.decode_png(value, channels=3), [32, 32])
                    image = distort(image)
                    return image

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
                dataset = dataset.map(tf.read_file)
                dataset = dataset.map(parse_record)
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
    )
