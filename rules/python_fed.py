"""Hand-built queues fed from Python threads through placeholders: `Dataset.from_generator`."""
from qmigrate.diagnostics import Safety
from qmigrate.rules.base import Example, Rule, example_source

_FEEDER = example_source("""
    import threading

    import tensorflow as tf


    class Feeder(object):
        def __init__(self, rows, batch_size):
            self.rows = rows
            self.x = tf.placeholder(tf.float32, [None])
            self.queue = tf.PaddingFIFOQueue(16, [tf.float32], shapes=[[None]])
            self.enqueue = self.queue.enqueue([self.x])
            self.xs = self.queue.dequeue_many(batch_size)

        def thread_main(self, sess):
            for row in self.rows:
                sess.run(self.enqueue, feed_dict={self.x: row})

        def start(self, sess):
            thread = threading.Thread(target=self.thread_main, args=(sess,))
            thread.daemon = True
            thread.start()
    """)


class PythonFedQueue(Rule):
    """A queue filled by a Python thread through placeholders is a dataset over a generator.

    ## Why
    Placeholders, a `FIFOQueue` / `PaddingFIFOQueue` / `RandomShuffleQueue` whose enqueue op reads
    them, a thread function whose loop runs `sess.run(enqueue, feed_dict={...})`, a
    `threading.Thread(target=...)` that runs it, and a dequeue: that is
    `tf.data.Dataset.from_generator` spelled by hand. The loop becomes a generator (the run a
    `yield` of the fed values, in the queue's component order), the dequeue a dataset over it
    (`output_types` from the queue's dtypes, `output_shapes` from its shapes or the placeholders'),
    `unbatch` for `enqueue_many` (a computed shape such as `x.shape[1:]` gets the batch
    dimension it feeds in front, `tf.TensorShape([None]).concatenate(...)`), `prefetch(capacity)` where the queue buffered, `shuffle` for a
    RandomShuffleQueue (its `min_after_dequeue`, its seed), the batching of `dequeue_many` (remainder
    dropped), `dequeue_up_to` (kept) or a padding queue (`padded_batch`), and a one-shot iterator
    whose `get_next()` takes the dequeue's place. The thread's start and stop code, the queue's
    `close` and the placeholders that only fed it go.

    Components decided when the feeder is built (a list of placeholders, and the queue's dtypes,
    grown by `.append(...)` in branches before the queue, e.g. an id input only when there are
    several speakers) are read when the dataset is built: `output_types=tuple(dtypes)` and the
    placeholders' own shapes, the fed values cut to as many as `zip()` fed. A queue dequeued
    once in each arm of an if (one arm runs) gets one dataset, built before the if. A queue per
    arm of an if (`if shuffle: q = tf.RandomShuffleQueue(...)` / `else: q = tf.FIFOQueue(...)`,
    every arm, else included, binding one, holding the same dtypes, shapes and padding) served by
    one enqueue op and one dequeue after the if is one dataset: its buffering (`prefetch` of each
    arm's capacity, `shuffle` where the arm shuffled) chosen by an if with the same tests, which
    must call nothing; the arms' constructors go (the if too when nothing else is in it).
    Placeholder lists added up in the enqueue (`self.xs + [self.y]`, `self.xs` made by a
    comprehension of placeholders) and fed by a feed_dict built key by key right before the run
    (`feed = {self.y: y}`, then `for x, v in zip(self.xs, values): feed[x] = v`) whose keys are
    exactly those placeholders: the generator (a method) yields
    `tuple(feed[placeholder] for placeholder in self.xs + [self.y])`, output_types and
    output_shapes are the placeholders' own, and the dequeue must be unpacked into names.

    A `dequeue()` (one record at a time) followed in its block by per-record code and a
    `tf.train.batch` / `shuffle_batch` of those records (or an if/else with one in each arm, under
    a test that calls nothing) takes the whole record path along: the per-record code becomes the
    map function `parse_record` (`num_parallel_calls` the batcher's `num_threads`), each arm's
    batcher its stages (`shuffle(min_after_dequeue, seed)` for a shuffle_batch, then `batch`,
    remainder dropped unless `allow_smaller_final_batch=True`), with no `repeat`: the generator
    decides when the records end (qmigrate/fed_batching.py). When that path cannot be proven (code
    between that does not work on the records, a record read elsewhere, `enqueue_many=` or
    `shapes=` on the batcher), only the dequeue is rewritten and the batcher keeps its queue, over
    the iterator's records, saying why.

    An enqueue op that the function building the queue returns to a caller, which hands it to a
    function that starts the thread (`batch, enqueue_op, placeholders = setup(spec)`, then
    `coord, t = start(sess, enqueue_op, data, placeholders)`, stopped and joined at the end; a
    FIFOQueue or RandomShuffleQueue) is followed across those functions of one module
    (qmigrate/returned_feeds.py): the thread function's `while` loop becomes a generator nested
    in the builder (`while True:`, the run a yield of the fed values in the enqueue's component
    order, `tuple(feed[c] for c in components)`, the placeholders staying as the feed's keys), the
    builder takes the Python objects the loop reads under the loop's names for them (the caller
    passes its own) and no longer returns the enqueue op, and the starter, the thread function and
    the caller's coordinator stop and join go. Every function whose signature changes or that
    goes must be named by no other module of the run (else it stays, saying which).

    A producer that reads and decodes files in Python (`np.load(path)`, `librosa.load(path)`,
    `Image.open(path)`, in its loop or a method of its class that it calls) stays Python in the
    generator; the finding names the first such read (qmigrate/python_reads.py), as TensorFlow
    decoding would be the user's choice, not the tool's.

    ## Fix safety
    Unsafe (applied with `--unsafe`; reported always): the generator runs inside TensorFlow's
    py_func on the input pipeline's thread, holding the GIL, instead of in its own thread; each new
    iterator runs it from the start; the graph holds a Python function, so it cannot be serialised
    (GraphDef, SavedModel) or run in another process; a generator that ends ends the input with
    OutOfRangeError where the queue waited; a RandomShuffleQueue's last `min_after_dequeue` elements
    now come out.

    ## Limitations
    The queue, its placeholders, its enqueue op and its dequeue must be built in one block (a
    dequeue elsewhere would build a dataset, and run the generator, per call); one enqueue op, run
    in exactly one place, by a function that one `threading.Thread` runs (not one per loop
    iteration: several producers) or by a helper that function calls once without arguments
    (it then yields from the helper), whose only use of the session is that run, fed a literal
    dict of exactly the enqueued placeholders (or `dict(zip(placeholders, values))`, built just
    before the run); the constructor's arguments are read again at the dequeue, so nothing in
    between may bind what they read; what the thread is given must mean the same where the queue is dequeued; a
    thread function nested after the dequeue moves up when defining it evaluates nothing. A
    feeder that is itself a `threading.Thread` keeps its base: its run() becomes the generator, so
    its start() feeds nothing (said in the finding). Anything else (a loop that runs other ops,
    an enqueue op returned to another function or module or handed to a queue runner of the
    program's own or in several copies (a thread each: several producers), a `tf.train.QueueRunner`
    that is never started and whose enqueue ops the main code runs with a feed_dict (no thread
    produces), an enqueue op returned to a caller whose thread runs it in any other shape than the one
    above (a builder called elsewhere or several times, a thread the caller starts itself, a
    return that is not a tuple of names), a queue handed to a feeder class that enqueues into it, a queue per arm whose
    enqueue op and dequeue are in the arm (components of its own), an enqueue op run in no
    function of the file (its producer is in another module), an enqueue op per arm, a placeholder
    list changed other than by
    appends before the queue, computed `dtypes=` that are not such a list, `names=` queues, the
    queue used for `size()`, a thread started in a loop) is reported with the construct, its
    line and the reason.
    """

    code = "QM308"
    safety = Safety.UNSAFE
    message = "a hand-built queue fed from a Python thread through placeholders"
    advice = ("run `qmigrate --unsafe`: the thread's loop becomes the generator of "
              "tf.data.Dataset.from_generator, and its get_next() replaces the dequeue")
    examples = (
        Example(before=_FEEDER),
        Example(
            before=_FEEDER,
            after=example_source("""
            import tensorflow as tf


            class Feeder(object):
                def __init__(self, rows, batch_size):
                    self.rows = rows
                    dataset = tf.data.Dataset.from_generator(self.thread_main, output_types=tf.float32, output_shapes=[None])
                    dataset = dataset.prefetch(16)
                    dataset = dataset.apply(tf.contrib.data.padded_batch_and_drop_remainder(batch_size, dataset.output_shapes))
                    self.xs = dataset.make_one_shot_iterator().get_next()

                def thread_main(self):
                    for row in self.rows:
                        yield row

                def start(self, sess):
                    pass
            """),
            unsafe=True,
        ),
    )
