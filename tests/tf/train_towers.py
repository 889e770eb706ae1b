"""Train a multi-tower program on 4 virtual devices and record what each tower saw (TF 1.x venv).

usage: train_towers.py PROGRAM_DIR TRAIN_MODULE MODEL_MODULE DATA_DIR WORK_DIR STEPS OUT_JSON [FLAG=VALUE...]

The program is run unmodified: `/gpu:N` device scopes are mapped to virtual `/cpu:N` devices
(`device_count={'CPU': 4}`), and every training step (a `sess.run([train_op, loss])`) also
fetches the tensors the program put in the 'example_ids' collection, one per tower.
After training, the model module's `inputs(eval_data=True)` and `inference()` are evaluated
from the saved checkpoint over NUM_EXAMPLES_PER_EPOCH_FOR_EVAL examples (the model module's,
or its cifar10_input's). Writes {"losses", "ids" (step x tower x example), "accuracy", ...}.
"""
import json
import os
import re
import sys
import time

import numpy as np
import tensorflow as tf

DEVICES = 4
_real_device = tf.device
_real_session_init = tf.Session.__init__
_real_run = tf.Session.run
record = {"losses": [], "ids": [], "step_seconds": []}


def virtual_device(spec):
    """`/gpu:N` → `/cpu:N`: one virtual CPU device per tower."""
    if isinstance(spec, str):
        spec = re.sub(r"(?i)/(device:)?gpu:(\d+)", lambda m: "/cpu:%s" % m.group(2), spec)
    return _real_device(spec)


def session_init(self, target="", graph=None, config=None):
    config = config or tf.ConfigProto()
    config.device_count["CPU"] = DEVICES
    config.allow_soft_placement = True
    _real_session_init(self, target, graph, config)


def run(self, fetches, *args, **kwargs):
    ids = self.graph.get_collection("example_ids")
    if isinstance(fetches, list) and len(fetches) == 2 and isinstance(fetches[0], tf.Operation) and ids:
        start = time.time()
        values = _real_run(self, list(fetches) + ids, *args, **kwargs)
        record["step_seconds"].append(time.time() - start)
        record["losses"].append(float(values[1]))
        record["ids"].append([v.tolist() for v in values[2:]])
        return values[:2]
    return _real_run(self, fetches, *args, **kwargs)


def evaluate(model, train_dir, eval_examples, batch_size):
    with tf.Graph().as_default():
        images, labels, ids = model.inputs(eval_data=True)
        correct = tf.nn.in_top_k(model.inference(images), labels, 1)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, tf.train.latest_checkpoint(train_dir))
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            hits, seen = 0, []
            for _ in range(eval_examples // batch_size):
                batch_correct, batch_ids = sess.run([correct, ids])
                hits += int(np.sum(batch_correct))
                seen += batch_ids.tolist()
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)
    return hits / float(len(seen)), seen


def main():
    program, train_module, model_module, data_dir, work_dir, steps, out = sys.argv[1:8]
    extra = sys.argv[8:]
    sys.path.insert(0, program)
    tf.device = virtual_device
    tf.Session.__init__ = session_init
    tf.Session.run = run
    tf.set_random_seed(7)
    train_dir = os.path.join(work_dir, "train")
    argv = ["train", "--data_dir=" + data_dir, "--train_dir=" + train_dir, "--max_steps=" + steps,
            "--num_gpus=%d" % DEVICES] + ["--" + flag for flag in extra]
    trainer = __import__(train_module)
    model = __import__(model_module)
    tf.app.flags.FLAGS(argv)
    trainer.main()
    eval_examples = getattr(model, "NUM_EXAMPLES_PER_EPOCH_FOR_EVAL", None) or \
        model.cifar10_input.NUM_EXAMPLES_PER_EPOCH_FOR_EVAL
    accuracy, eval_ids = evaluate(model, train_dir, eval_examples, tf.app.flags.FLAGS.batch_size)
    record.update(accuracy=accuracy, eval_ids=eval_ids)
    with open(out, "w") as handle:
        json.dump(record, handle)


if __name__ == "__main__":
    main()
