"""Train an Estimator from a module's input_fn factory, then evaluate it (TF 1.x venv).

usage: train_estimator.py MODULE_PATH FILES_JSON MODEL_DIR EPOCHS OUT_JSON
The module provides train(files, model_dir, epochs) -> estimator and make_input_fn(files,
batch_size, num_epochs). Writes the evaluation metrics as JSON.
"""
import importlib.util
import json
import sys

import tensorflow as tf


def main(path, files_json, model_dir, epochs, out):
    spec = importlib.util.spec_from_file_location("estimator_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    files = json.loads(files_json)
    estimator = module.train(files, model_dir, epochs=int(epochs))
    metrics = estimator.evaluate(input_fn=module.make_input_fn(files, 10, num_epochs=1))
    with open(out, "w") as handle:
        json.dump({key: float(value) for key, value in metrics.items()}, handle)


if __name__ == "__main__":
    tf.logging.set_verbosity(tf.logging.ERROR)
    main(*sys.argv[1:6])
