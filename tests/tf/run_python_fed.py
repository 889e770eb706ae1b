"""Drain a Python-fed input (testdata/python_fed) before or after migration (run under a TF 1.x
virtualenv, or TF 2 in graph mode through tf.compat.v1).

usage: run_python_fed.py MODULE_PATH CASE OUT_JSON [--drain-past-end]
Writes {"static_shapes", "batches": [{"ids", "shape", "values"}], "ended"}. With
--drain-past-end a finite case asks for one batch more than the data holds and records whether
the input ended with OutOfRangeError (a queue would wait forever there, so only migrated code is
asked); endless cases (grouped_batches, nested_producer, thread_subclass, growing_feeder) read
their first batches.
"""
import importlib.util
import json
import os
import signal
import sys

import numpy as np
import tensorflow as tf

if tf.__version__.startswith("2."):
    tf = tf.compat.v1
    tf.disable_eager_execution()

# Example lengths of the padding feeder: 48 examples of 1 to 4 frames, 6 batches of 8 padded to
# 2, 3 or 4 frames.
LENGTHS = [1 + (index // 8) % 3 + index % 2 for index in range(48)]
BATCH = 8
# The shuffled chunks: 256 examples of 4 features, 16 batches of 16.
EXAMPLES, SHUFFLE_BATCH = 256, 16


def load(path):
    spec = importlib.util.spec_from_file_location("python_fed_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_batches(sess, values, ids, count, out):
    """Append `count` batches of (values, ids) to out["batches"]; an OutOfRangeError sets out["ended"]."""
    for _ in range(count):
        try:
            got, got_ids = sess.run([values, ids])
        except tf.errors.OutOfRangeError:
            out["ended"] = True
            return
        out["batches"].append({"ids": got_ids.tolist(), "shape": list(got.shape), "values": got.tolist()})


def padding_feeder(module, past_end):
    feeder = module.DataFeeder(LENGTHS, BATCH)
    out = {"static_shapes": [feeder.inputs.shape.as_list(), feeder.ids.shape.as_list()], "batches": []}
    sess = tf.Session()
    feeder.start_threads(sess)
    read_batches(sess, feeder.inputs, feeder.ids, len(LENGTHS) // BATCH + past_end, out)
    return out


def shuffle_chunks(module, past_end):
    features = np.arange(EXAMPLES, dtype=np.float32)[:, None] + np.array([0.0, 0.1, 0.2, 0.3], np.float32)
    ids = np.arange(EXAMPLES, dtype=np.int64)
    out = {"batches": []}

    def log(values):
        batch_ids, total = values
        out["batches"].append({"ids": batch_ids.tolist(), "shape": list(total.shape), "values": total.tolist()})

    try:
        module.train(features, ids, SHUFFLE_BATCH, EXAMPLES // SHUFFLE_BATCH + past_end, log=log)
    except tf.errors.OutOfRangeError:
        out["ended"] = True
    return out


def grouped_batches(module, past_end):
    """An endless feeder: its first batches (three groups)."""
    sentences = [list(range(index, index + 1 + (index * 5) % 7)) for index in range(40)]
    coord = tf.train.Coordinator()
    feeder = module.BatchFeeder(coord, sentences, 4, seed=3)
    out = {"static_shapes": [feeder.tokens.shape.as_list(), feeder.lengths.shape.as_list()], "batches": []}
    sess = tf.Session()
    feeder.start_in_session(sess)
    for _ in range(12):
        tokens, lengths = sess.run([feeder.tokens, feeder.lengths])
        out["batches"].append({"ids": [row[0] for row in tokens.tolist()], "shape": list(tokens.shape),
                               "values": tokens.tolist(), "lengths": lengths.tolist()})
    coord.request_stop()
    return out


def nested_producer(module, past_end):
    """An endless feeder of single examples in chunks: its first 100 examples (three passes and more)."""
    images = np.arange(30 * 2 * 2, dtype=np.float32).reshape(30, 2, 2)
    labels = np.arange(30, dtype=np.int64)
    sess = tf.Session()
    coord = tf.train.Coordinator()
    image, label = module.build_input(sess, coord, images, labels, chunk=8, capacity=16)
    out = {"static_shapes": [image.shape.as_list(), label.shape.as_list()], "batches": []}
    for _ in range(100):
        value, ident = sess.run([image, label])
        out["batches"].append({"ids": [int(ident)], "shape": list(value.shape), "values": value.tolist()})
    coord.request_stop()
    return out


def thread_subclass(module, past_end):
    """An endless feeder that is itself a thread: its first batches."""
    texts = ["a" * (1 + index % 4) + chr(ord("b") + index) for index in range(10)]
    coord = tf.train.Coordinator()
    feeder = module.DataFeeder(coord, texts, 3)
    out = {"static_shapes": [feeder.inputs.shape.as_list(), feeder.input_lengths.shape.as_list()], "batches": []}
    sess = tf.Session()
    feeder.start_in_session(sess)
    for _ in range(10):
        inputs, lengths = sess.run([feeder.inputs, feeder.input_lengths])
        out["batches"].append({"ids": [int(row[lengths[i] - 1]) for i, row in enumerate(inputs)],
                               "shape": list(inputs.shape), "values": inputs.tolist(), "lengths": lengths.tolist()})
    coord.request_stop()
    return out


def computed_shapes(module, past_end):
    """64 examples of 2x3 values pushed in chunks of 16, read in 8 batches of 8."""
    values = np.arange(64 * 6, dtype=np.float32).reshape(64, 2, 3)
    ids = np.arange(64, dtype=np.int64)
    sess = tf.Session()
    batch, batch_ids = module.build_input(sess, values, ids, 8)
    out = {"static_shapes": [batch.shape.as_list(), batch_ids.shape.as_list()], "batches": []}
    read_batches(sess, batch, batch_ids, 8 + past_end, out)
    return out


def arm_dequeues(module, past_end):
    """Rows of (features, id, label), the label never fed: 3 batches of 8 per graph, whole batches
    only and then with the last partial one kept (none here: 24 rows)."""
    out = {"static_shapes": [], "batches": []}
    for graph, keep_last in enumerate((False, True)):
        rows = [(np.arange(4, dtype=np.float32) + 10 * index, index, -index)
                for index in range(24 * graph, 24 * graph + 24)]
        with tf.Graph().as_default():
            sess = tf.Session()
            features, ids = module.build_input(sess, rows, 8, keep_last)
            out["static_shapes"].append([features.shape.as_list(), ids.shape.as_list()])
            read_batches(sess, features, ids, 3 + past_end, out)
    return out


def growing_feeder(module, past_end):
    """An endless feeder whose components depend on its data: its first batches with one group (two
    components; each batch's third value, the group ids, is never fed) and with two groups (three)."""
    groups = [[list(range(index, index + 1 + index % 3)) for index in range(7)],
              [[100 + index] * (1 + index % 2) for index in range(5)]]
    out = {"static_shapes": [], "batches": []}
    for count in (1, 2):
        with tf.Graph().as_default():
            coord = tf.train.Coordinator()
            feeder = module.GroupFeeder(coord, groups[:count], 3)
            tensors = [feeder.values, feeder.lengths] + ([feeder.group_ids] if feeder.with_ids else [])
            out["static_shapes"].append([t.shape.as_list() if t.shape.ndims is not None else None for t in tensors])
            sess = tf.Session()
            feeder.start_in_session(sess)
            for _ in range(8):
                got = sess.run(tensors)
                out["batches"].append({"ids": [int(row[0]) for row in got[0].tolist()], "shape": list(got[0].shape),
                                       "values": got[0].tolist(), "lengths": got[1].tolist(),
                                       "groups": got[2].tolist() if len(got) > 2 else None})
            coord.request_stop()
    return out


def shuffle_arm(module, past_end):
    """48 windows of 3 values (10 * id + 0, 1, 2) in batches of up to 8, one graph with the FIFOQueue
    arm and one with the RandomShuffleQueue arm. The shuffling queue keeps 16 back and is never
    closed: before migration it gives 4 batches, and only those are asked of it."""
    out = {"static_shapes": [], "batches": []}
    for shuffle in (False, True):
        with tf.Graph().as_default():
            windows = [np.arange(3, dtype=np.float32) + 10 * index for index in range(48)]
            feeder = module.WindowFeeder(windows, BATCH, shuffle)
            out["static_shapes"].append([feeder.windows_out.shape.as_list(), feeder.ids_out.shape.as_list()])
            sess = tf.Session()
            feeder.start(sess)
            count = 6 + past_end if past_end or not shuffle else 4
            out["ended"] = False
            read_batches(sess, feeder.windows_out, feeder.ids_out, count, out)
            out.setdefault("ends", []).append(out.pop("ended"))
    return out


def buffer_arms(module, past_end):
    """Chunks of 8 rows fed in each of the three modes (a graph each, ids 48 * mode + 0..47), read
    in 6 batches of 8."""
    out = {"static_shapes": [], "batches": [], "ends": []}
    for mode_index, mode in enumerate(("eval", "train", "test")):
        with tf.Graph().as_default():
            ids = np.arange(48, dtype=np.int64) + 48 * mode_index
            values = np.stack([ids * 10.0, ids * 10.0 + 1], axis=1).astype(np.float32)
            rows = [(values[start:start + 8], ids[start:start + 8]) for start in range(0, 48, 8)]
            sess = tf.Session()
            batch, batch_ids = module.build_input(sess, rows, BATCH, mode)
            out["static_shapes"].append([batch.shape.as_list(), batch_ids.shape.as_list()])
            out["ended"] = False
            read_batches(sess, batch, batch_ids, 6 + past_end, out)
            out["ends"].append(out.pop("ended"))
    return out


def concatenated_inputs(module, past_end):
    """40 rows of two columns (3 values 10 * id + 0, 1, 2, and id + 0.5) and a target (the id),
    fed in 5 chunks of 8, one chunk per dequeue."""
    ids = np.arange(40, dtype=np.int64)
    first = (ids[:, None] * 10 + np.arange(3)).astype(np.float32)
    second = (ids + 0.5).astype(np.float32)
    feeder = module.ColumnFeeder([first, second], ids, 8)
    out = {"static_shapes": [t.shape.as_list() if t.shape.ndims is not None else None  # a queue without shapes
                             for t in (feeder.first, feeder.second, feeder.labels)], "batches": []}
    sess = tf.Session()
    feeder.start(sess)
    for _ in range(5 + past_end):
        try:
            got_first, got_second, got_ids = sess.run([feeder.first, feeder.second, feeder.labels])
        except tf.errors.OutOfRangeError:
            out["ended"] = True
            break
        out["batches"].append({"ids": got_ids.tolist(), "shape": list(got_first.shape),
                               "values": got_first.tolist(), "second": got_second.tolist()})
    return out


def batched_records(module, past_end):
    """48 rows, dequeued one at a time, mapped (x * 2 + 1) and batched by 8: FIFO (tf.train.batch),
    then shuffled (shuffle_batch keeping 8 back), each in a graph of its own. The legacy shuffle
    queue gives 5 batches (it keeps 8 records back, and the feeder ends); the migrated input gives
    all 6, then ends."""
    rows = np.arange(48, dtype=np.float32)[:, None] * 10.0 + np.array([0.0, 0.5], np.float32)
    ids = np.arange(48, dtype=np.int64)
    out = {"batches": [], "ends": [], "counts": []}
    for shuffle in (False, True):
        with tf.Graph().as_default():
            sess = tf.Session()
            loader = module.RowLoader(sess, 8, buffered=64, keep_back=8)
            values, got_ids = loader.batches(rows, ids, shuffle=shuffle, scale=True)
            out["static_shapes"] = [values.shape.as_list(), got_ids.shape.as_list()]
            before = len(out["batches"])
            read_batches(sess, values, got_ids, (5 if shuffle else 6) + past_end * (2 if shuffle else 1), out)
            out["ends"].append(out.pop("ended", False))
            out["counts"].append(len(out["batches"]) - before)
    return out


def returned_feed(module, past_end):
    """The trainers whose builder returns the enqueue op: 12 steps of the FIFO one (its Python
    batches, in order: ids and the images that hold them) and 10 of the shuffling one (8 examples
    a batch, each row 3 x its id + 0, 1, 2)."""
    out = {"batches": [], "shuffled": []}
    with tf.Graph().as_default():
        for ids, images in module.train(12):
            out["batches"].append({"ids": ids.tolist(), "shape": list(images.shape), "values": images.tolist()})
    with tf.Graph().as_default():
        for examples, ids in module.shuffled_training(10):
            out["shuffled"].append({"ids": ids.tolist(), "values": examples.tolist()})
    return out


def train_and_eval_queues(module, past_end):
    """One list of placeholders fed to a train queue (5 batches: ids 0-19) and an eval queue (3
    batches: ids 20-31) by two threads: every train batch, then every eval batch."""
    train = [list(range(start, start + 4)) for start in range(0, 20, 4)]
    evaluation = [list(range(start, start + 4)) for start in range(20, 32, 4)]
    feeder = module.TrainAndEvalFeeder(train, evaluation)
    out = {"static_shapes": [feeder.features.shape.as_list(), feeder.eval_ids.shape.as_list()], "batches": []}
    sess = tf.Session()
    feeder.start_threads(sess)
    read_batches(sess, feeder.features, feeder.ids, len(train) + past_end, out)
    train_ended = out.pop("ended", False)
    read_batches(sess, feeder.eval_features, feeder.eval_ids, len(evaluation) + past_end, out)
    out["ended"] = train_ended and out.get("ended", False)  # both inputs end with their data
    return out


def conditioned_feeder(module, past_end):
    """train_and_eval_queues.ConditionedFeeder in two graphs (float features with ids, int
    features without): 5 train batches (ids 0-19), then 3 eval batches (ids 20-31), in each."""
    train = [list(range(start, start + 4)) for start in range(0, 20, 4)]
    evaluation = [list(range(start, start + 4)) for start in range(20, 32, 4)]
    out = {"static_shapes": [], "batches": [], "ended": True}
    for scaled in (True, False):
        with tf.Graph().as_default():
            feeder = module.ConditionedFeeder(train, evaluation, scaled=scaled, with_ids=scaled)
            # (the legacy dequeue gives the ids no static shape: the queue was made without shapes=)
            out["static_shapes"].append(feeder.features.shape.as_list())
            sess = tf.Session()
            feeder.start_threads(sess)
            graph = {"batches": []}
            read_batches(sess, feeder.features, feeder.ids, len(train) + past_end, graph)
            train_ended = graph.pop("ended", False)
            read_batches(sess, feeder.eval_features, feeder.eval_ids, len(evaluation) + past_end, graph)
            out["ended"] = out["ended"] and train_ended and graph.get("ended", False)
            out["batches"] += graph["batches"]
    return out


CASES = {"conditioned_feeder": conditioned_feeder, "train_and_eval_queues": train_and_eval_queues, "returned_feed": returned_feed, "batched_records": batched_records, "concatenated_inputs": concatenated_inputs, "shuffle_arm": shuffle_arm, "buffer_arms": buffer_arms, "arm_dequeues": arm_dequeues, "computed_shapes": computed_shapes, "growing_feeder": growing_feeder, "padding_feeder": padding_feeder, "shuffle_chunks": shuffle_chunks, "grouped_batches": grouped_batches,
         "nested_producer": nested_producer, "thread_subclass": thread_subclass}


def main():
    path, case, out_path = sys.argv[1:4]
    past_end = int("--drain-past-end" in sys.argv[4:])
    signal.alarm(300)  # a queue that waits forever fails the test instead of hanging it
    result = CASES[case](load(path), past_end)
    result.setdefault("ended", False)
    with open(out_path, "w") as handle:
        json.dump(result, handle)
    # A legacy producer thread that is not a daemon may still wait on its full queue: do not join it.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
