"""Hand-built queues (`FIFOQueue`, `RandomShuffleQueue`, `PaddingFIFOQueue`) filled by queue runners."""
from typing import Optional

from qmigrate.rules.base import Example, Rule, example_source
from qmigrate.rules.unsupported import short_name

_GENERATOR = ("if it carries input records, make them a tf.data dataset (tf.data.Dataset.from_generator(gen, "
              "output_types, output_shapes) for values made in Python), batch it there, and replace each dequeue "
              "with the iterator's get_next(); if it carries other values (a buffer of the model's state, a "
              "computation run in the background), nothing to migrate")
# Why a queue constructor stays where no block of the file holds the chain that would fill it.
_UNFED = ("what fills it is not the record of a producer → reader chain in the same block of this file (records "
          "read in another function or module, tensors fed from Python, or a queue that is not input)")
_WITH_QUEUE = "remove it together with the queue once the queue is replaced by a dataset"

# canonical name -> (what it is, why it stays when no pipeline took it, what to do)
_NAMES = {
    "tensorflow.FIFOQueue": (
        "a hand-built queue",
_UNFED,
        _GENERATOR),
    "tensorflow.PaddingFIFOQueue": (
        "a hand-built padding queue",
_UNFED,
        _GENERATOR.replace("batch it there", "pad-batch it there with padded_batch(n, dataset.output_shapes)")),
    "tensorflow.RandomShuffleQueue": (
        "a hand-built shuffling queue",
_UNFED,
        _GENERATOR.replace("batch it there", "shuffle(capacity) and batch it there")),
    "tensorflow.train.QueueRunner": (
        "a runner of the enqueue ops of a hand-built queue",
        "it runs the enqueue ops of a hand-built queue; it goes with that queue",
        _WITH_QUEUE),
    "tensorflow.train.add_queue_runner": (
        "the registration of a runner of a hand-built queue",
        "it registers a runner of a hand-built queue; it goes with that queue",
        _WITH_QUEUE),
}


class HandBuiltQueue(Rule):
    """A hand-built queue filled by queue runners with the records of a reader is a dataset stage.

    ## Why
    A queue, its enqueue op run by `[enqueue] * n` threads of a `QueueRunner` registered with
    `add_queue_runner`, and its dequeue is `shuffle_batch` (or `batch`) spelled by hand, and
    migrates like it: the per-record code that fed the enqueue goes into `map`
    (`num_parallel_calls` = the number of enqueue ops), a `RandomShuffleQueue` becomes
    a shuffle buffer of `min_after_dequeue` as `shuffle_batch` has (seed kept; before the map when the
    queue holds the records as the reader read them, before any per-record code, as Inception's
    queue of serialized examples: the buffer then holds what the queue held, not decoded records),
    `dequeue_many(n)` becomes a batch
    that drops the remainder (the queue never gave a partial batch), `dequeue_up_to(n)` one that
    keeps it, a `PaddingFIFOQueue` pads (`padded_batch` over its shapes, set on the records), and
    `names=` keeps dict elements. A `dequeue()` gives records one at a time: a `tf.train.batch`
    after it is the batching, and the queue's shuffle joins it; when nothing after it in its block
    batches, joins, buckets or queues the records again (the model takes one record per step),
    the dataset has no batch stage and its `get_next()` stands where the dequeue was, the code
    after it staying in place (a constructor that reads the records only for its `dtypes=` goes
    with the queue); its records may come from a record source of the same file
    (`image, label = read(files)`, a function that makes its own producer and reader); a FIFOQueue that holds the whole
    batches of a `tf.train.batch` and is dequeued whole is `prefetch(capacity)` (a chain of
    queues becomes one dataset). The runner and its registration (`add_queue_runner`, or
    `tf.add_to_collection(tf.GraphKeys.QUEUE_RUNNERS, runner)`) go with the queue; so does a list
    of its one enqueue op handed to the runner (`ops = [queue.enqueue(...)]`, or `ops = []` and
    one `ops.append(queue.enqueue(...))`: one thread). A queue whose class a test chooses
    (`if shuffle: q = tf.RandomShuffleQueue(...) else: q = tf.FIFOQueue(...)`, alike but for
    shuffling and capacity) is one queue that shuffles when the test holds: the dataset tests it
    again (`if shuffle: shuffle_and_repeat(...) else: repeat(...)`), the shuffle with the
    RandomShuffleQueue's buffer (a FIFOQueue's capacity changes no record's order). The arms may
    also hold that mode's per-record code and settings (`if mode == 'train': image = augment(image);
    q = tf.RandomShuffleQueue(...); num_threads = 16 else: ...; q = tf.FIFOQueue(...);
    num_threads = 1`, the ResNet CIFAR input): the if is read as three on the same test, settings
    (a name bound to literals and names, no tensor), per-record code (into the map function) and
    the queues, where reordering each arm's statements that way changes nothing they read or bind
    (qmigrate/split_arms.py). A setting bound inside per-record code cannot set the runner's
    threads or the queue's capacity: the dataset reads those outside the map. A loop of n readers on one file
    queue, each appending its enqueue op to the runner's list (`for _ in range(n): ...;
    ops.append(queue.enqueue([record]))`), reads the files n at a time:
    `interleave(dataset_class, cycle_length=n)`, the loop's per-record code in the map. Its
    reader may come from a function or method that only returns a new TensorFlow reader
    (`reader = images.reader()`, the object proven an instance of that class, also of another
    module's: qmigrate/reader_makers.py); the maker stays for whoever else calls it.

    A *queue helper* — a function that passes the tensors it is given through such a queue and
    returns its dequeue (`def _shuffle_inputs(tensors, capacity, min_after_dequeue, n)`) — is
    followed from each call in a block that reads and batches records: the call becomes the
    records again (`tensors = list(tensors)`, the shapes its queue set), its queue the dataset's
    shuffle and `num_parallel_calls`; a helper returning `dequeue_many` is the batching. A loop
    that only sets again the static shapes the queue lost is dropped with it. A helper every
    call of which migrated is removed; one that other code still calls stays as it is. A call
    that is a statement of `if test:` (no else) is a stage taken when the test holds: the `if`
    stays in place with its other statements (plain Python that does not touch the records), and
    the dataset tests it again (`if test: shuffle_and_repeat(...) else: repeat(...)`).

    Records that come through a chain of functions of other modules of the run
    (`image, label = factory.get_examples(...)`, which calls `reader.read(files)`, whose producer
    and reader qmigrate reads as a dataset) are followed (qmigrate/chained_records.py): each
    function of the chain returns the dataset of its records instead, the per-record code after
    its call mapped over it, and the queue's stages (shapes, shuffle, batch) are built on the
    dataset where the call was, after the repeat the chain's producer made (the shuffle mixes
    neighbouring epochs, as the queue did); the runner's threads are dropped (they change the
    order only).
    A function of the chain that other code calls keeps its signature and its result for it and
    delegates to a new `<name>_dataset` that the chain calls. All the modules change together or
    none does.

    A queue filled with the rows of arrays made in memory (`enqueue_many([data, labels])` of NumPy
    arrays, draws of `np.random`, `tf.constant`s: qmigrate/array_queues.py) gives those rows in
    order, over and over (a queue completes one run of its enqueue op before the next, whatever
    the number of threads): it becomes `from_tensor_slices` of the arrays, converted to the queue's
    dtypes as `enqueue_many` converts them (`tf.convert_to_tensor(data, dtype=tf.float32)`),
    repeated (shuffled and repeated for a RandomShuffleQueue), batched for `dequeue_many(n)`. Its
    runner may be registered, or started by hand in the same scope (`threads =
    runner.create_threads(sess, coord=coord, start=True)`): the start goes too, and `threads`
    holds no thread (`threads = []`) for whatever joins it.

    ## Fix safety
    Safe, as `shuffle_batch`: the shuffle sits before `repeat`, so every example is seen once per
    epoch where the queue mixed neighbouring epochs; partial batches only with `dequeue_up_to`.

    ## Limitations
    The constructor (or the if/else choosing its class, whose test reads only names and literals,
    none reassigned after it), enqueue, runner and dequeue must lie in one block with the producer → reader
    chain whose records are enqueued, the queue and its enqueue op used for nothing else, one
    enqueue op, a literal `shapes=` (set on plain names), no `shared_name=`, and what is enqueued a
    literal list, tuple or dict. A loop of TensorFlow readers on one file queue, each adding its
    enqueue op to the list the QueueRunner runs, must end in that append after `ops = []`; one
    whose reader comes from a call that is no TensorFlow reader class nor a reader maker (one
    `return tf.XReader()` with no arguments) is reported with that call, and so is a maker called
    on an object whose class is not proven. A queue helper must build one queue as its first statement, from
    parameters, and do nothing else; its call must be a statement of its own (or of an `if`
    without else whose test reads only names and literals, none reassigned in or after the `if`),
    given a list by name only when the list's last binding before the call is a literal, and no
    argument of its queue may be a per-record tensor or be reassigned after the call. A
    QueueRunner subclass, a runner started by hand (`create_threads`, named with its line; of a
    queue of in-memory rows, started in the same scope, it goes), a
    queue fed from Python, records shuffled twice (a RandomShuffleQueue then
    `shuffle_batch`), `enqueue_many` with `shapes=` (the shapes of single examples, which the map
    cannot set), several enqueue ops (several readers) and a `dequeue()` that no batching follows
    from a queue with `shapes=` (the queue checks each record against them when it is enqueued; a
    dataset would not) are reported with the reason. Records that come from a function of another
    module are followed only through functions each of which makes one call of the next, binds
    its records to names, works on them with assignments only and returns them (nothing else); a
    chain function written on one line, with * or ** parameters, or called in another form is not
    followed, and neither are records the caller uses beside the queue: the queue is then reported
    with where its records come from. A queue
    whose every dequeue goes back to Python is not input (QM003). So is a queue the code shows
    carries something else, reported with what shows it and nothing to migrate: one shared by
    name (`shared_name=`: a hand-off between processes, or the constant tokens of a barrier
    between workers), one whose enqueue ops its function returns for the callers to run with no
    QueueRunner (a buffer of state carried from one step to the next), and a QueueRunner whose
    "queue" is an object of a class of the module (its own ops, not a queue of records).
    """

    code = "QM307"
    names = tuple(_NAMES)
    message = "a hand-built queue filled by queue runners"
    advice = "replace the queue, its runner and its dequeue with tf.data stages"
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.python.ops import data_flow_ops

            def inputs(files, batch_size):
                file_queue = tf.train.string_input_producer(files, num_epochs=1)
                _, record = tf.TFRecordReader().read(file_queue)
                x = tf.parse_single_example(record, {'x': tf.FixedLenFeature([3], tf.float32)})['x']
                queue = data_flow_ops.RandomShuffleQueue(capacity=100, min_after_dequeue=50, dtypes=[tf.float32],
                                                         shapes=[[3]], seed=7)
                enqueue = queue.enqueue([x])
                tf.train.queue_runner.add_queue_runner(tf.train.QueueRunner(queue, [enqueue] * 4))
                xs = queue.dequeue_many(batch_size)
                return xs
            """),
            after=example_source("""
            import tensorflow as tf

            def inputs(files, batch_size):
                def parse_record(record):
                    x = tf.parse_single_example(record, {'x': tf.FixedLenFeature([3], tf.float32)})['x']
                    with tf.control_dependencies([tf.assert_equal(tf.shape(x), tf.constant([3], tf.int32))]):
                        x = tf.identity(x)
                    x.set_shape([3])
                    return x

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.map(parse_record, num_parallel_calls=4)
                dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(50, 1, seed=7))
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
                dataset = dataset.prefetch(1)
                xs = dataset.make_one_shot_iterator().get_next()
                return xs
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow as tf


            def _shuffle_inputs(tensors, capacity, min_after_dequeue, num_threads):
                queue = tf.RandomShuffleQueue(capacity, min_after_dequeue, dtypes=[t.dtype for t in tensors])
                enqueue_op = queue.enqueue(tensors)
                runner = tf.train.QueueRunner(queue, [enqueue_op] * num_threads)
                tf.train.add_queue_runner(runner)
                shuffled = queue.dequeue()
                for i in range(len(tensors)):
                    shuffled[i].set_shape(tensors[i].shape)
                return shuffled


            def inputs(files, batch_size):
                file_queue = tf.train.string_input_producer(files, num_epochs=1)
                _, record = tf.TFRecordReader().read(file_queue)
                parsed = tf.parse_single_example(record, {'x': tf.FixedLenFeature([3], tf.float32),
                                                          'y': tf.FixedLenFeature([], tf.int64)})
                tensors = [parsed['x'], parsed['y']]
                tensors = _shuffle_inputs(tensors, 100, 50, num_threads=2)
                return tf.train.batch(tensors, batch_size)
            """),
            after=example_source("""
            import tensorflow as tf


            def inputs(files, batch_size):
                def parse_record(record):
                    parsed = tf.parse_single_example(record, {'x': tf.FixedLenFeature([3], tf.float32),
                                                              'y': tf.FixedLenFeature([], tf.int64)})
                    tensors = [parsed['x'], parsed['y']]
                    tensors = list(tensors)
                    return tuple(tensors)

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.map(parse_record, num_parallel_calls=2)
                dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(50, 1))
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(batch_size))
                dataset = dataset.prefetch(1)
                return list(dataset.make_one_shot_iterator().get_next())
            """),
        ),
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.python.ops import data_flow_ops

            def staged(images, labels):
                queue = data_flow_ops.FIFOQueue(capacity=8, dtypes=[tf.float32, tf.int32])
                enqueue = queue.enqueue([images, labels])
                tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue] * 2))
                return queue.dequeue()
            """),
        ),
    )

    @classmethod
    def message_for(cls, name: Optional[str]) -> str:
        if name is not None and name.endswith("GraphKeys.QUEUE_RUNNERS"):
            return "%s is the collection of queue runners, used by hand" % short_name(name)
        what = _NAMES[name][0] if name in _NAMES else "a hand-built queue"
        return "%s is %s" % (short_name(name), what)

    @classmethod
    def reason_for(cls, name: Optional[str]) -> Optional[str]:
        return _NAMES[name][1] if name in _NAMES else None

    @classmethod
    def advice_for(cls, name: Optional[str]) -> str:
        return _NAMES[name][2] if name in _NAMES else cls.advice
