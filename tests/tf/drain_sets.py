"""Build a function's sets of batches (lists of tensors, one element per set) and fetch every
set's batch together, step after step, as a multi-GPU step would (TF 1.x).

usage: drain_sets.py MODULE_PATH FUNCTION ARGS_JSON STEPS OUT_JSON
The function returns (features_list, labels_list, ids_list). Writes {"steps": [[[id, ...] per
set] per step], "shapes": [[features shape per set] per step], "rows": [[id, label, first
feature] of every row of the first step]}.
"""
import importlib.util
import json
import sys

import numpy as np
import tensorflow as tf


def main(path, function, args_json, steps, out_path):
    tf.set_random_seed(1)
    spec = importlib.util.spec_from_file_location("sets_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    features, labels, ids = getattr(module, function)(**json.loads(args_json))
    got, shapes, rows = [], [], []
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        for step in range(steps):
            f, l, i = sess.run([features, labels, ids])
            got.append([np.asarray(one).tolist() for one in i])
            shapes.append([list(np.shape(one)) for one in f])
            for set_f, set_l, set_i in zip(f, l, i):
                rows += [[int(a), int(b), float(c[0])] for a, b, c in zip(set_i, set_l, set_f)]
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
    with open(out_path, "w") as handle:
        json.dump({"steps": got, "shapes": shapes, "rows": rows}, handle)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
