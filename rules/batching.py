"""Batching: `tf.train.batch` and `tf.train.shuffle_batch`."""
from qmigrate.model import Batching
from qmigrate.rules.base import Rule, SourceOf, Unsupported, is_none, is_one, literal_bool


def _common(args, source: SourceOf, what: str) -> dict:
    if literal_bool(args.get("enqueue_many"), False, "enqueue_many"):
        raise Unsupported("it sets enqueue_many=True (each input is already a batch), which needs unbatching")
    if literal_bool(args.get("dynamic_pad"), False, "dynamic_pad"):
        raise Unsupported("it sets dynamic_pad=True, which needs padded_batch with explicit shapes")
    for unsupported in ("shapes", "shared_name"):
        if not is_none(args.get(unsupported)):
            raise Unsupported("it sets `%s=`, which qmigrate does not translate yet" % unsupported)
    if "batch_size" not in args:
        raise Unsupported("it has no batch_size argument")
    threads = args.get("num_threads")
    return dict(
        batch_size=source(args["batch_size"]),
        num_threads=None if is_one(threads) else source(threads),
        allow_smaller_final_batch=literal_bool(
            args.get("allow_smaller_final_batch"), False, "allow_smaller_final_batch"),
    )


class Batch(Rule):
    """`tf.train.batch` becomes `map(num_parallel_calls=num_threads)` → `batch` → `prefetch`.

    ## Why
    The batching queue and its runner threads are replaced by dataset stages.

    ## Fix safety
    Safe. Without `allow_smaller_final_batch=True` the remainder is dropped, as the queue never
    produced a partial batch, and the batch dimension stays static (on 1.8 through
    `tf.contrib.data.batch_and_drop_remainder`). Records keep their order; with several threads
    the queue's order was already nondeterministic.

    ## Limitations
    `enqueue_many`, `dynamic_pad` and `shapes` are not rewritten yet.
    """

    code = "QM301"
    names = ("tensorflow.train.batch",)
    signature = ("tensors", "batch_size", "num_threads", "capacity", "enqueue_many", "shapes",
                 "dynamic_pad", "allow_smaller_final_batch", "shared_name", "name")
    message = "tf.train.batch builds batches with a queue"
    advice = "batch a tf.data dataset: dataset.map(parse).batch(n) and a one-shot iterator"

    @classmethod
    def model(cls, args, source, resolve) -> Batching:
        return Batching(**_common(args, source, "batch"))


class ShuffleBatch(Rule):
    """`tf.train.shuffle_batch` becomes `map` → `shuffle(capacity)` → `repeat` → `batch` → `prefetch`.

    ## Why
    The RandomShuffleQueue becomes a shuffle buffer of the same capacity (an upper bound on what
    the queue held), so memory use does not grow.

    ## Fix safety
    Safe. The shuffle sits before `repeat`, so every example is seen once per epoch; the queue
    mixed neighbouring epochs, which is a looser guarantee. The seed is kept. Partial batches are
    dropped unless `allow_smaller_final_batch=True`, as before.

    ## Limitations
    `enqueue_many`, `shapes` are not rewritten yet.
    """

    code = "QM302"
    names = ("tensorflow.train.shuffle_batch",)
    signature = ("tensors", "batch_size", "capacity", "min_after_dequeue", "num_threads", "seed",
                 "enqueue_many", "shapes", "allow_smaller_final_batch", "shared_name", "name")
    message = "tf.train.shuffle_batch shuffles and batches with a queue"
    advice = "shuffle and batch a tf.data dataset: dataset.map(parse).shuffle(buffer).repeat().batch(n)"

    @classmethod
    def model(cls, args, source, resolve) -> Batching:
        if "capacity" not in args:
            raise Unsupported("it has no capacity argument")
        seed = args.get("seed")
        return Batching(
            shuffle_buffer=source(args["capacity"]),
            seed=None if is_none(seed) else source(seed),
            **_common(args, source, "shuffle_batch")
        )
