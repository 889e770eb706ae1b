"""An Estimator input_fn returns its Dataset only where its callers are proven core Estimators
(qmigrate/estimator_inputs.py); anywhere else it returns the one-shot iterator's next batch, which
tf.contrib.learn's Estimator and code calling the input_fn itself unpack as they did."""
import os

from qmigrate import api

_INPUT_FN = '''\
import tensorflow as tf


def make_input_fn(files, batch_size):
    def input_fn():
        queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
        _, serialized = tf.TFRecordReader().read(queue)
        parsed = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32),
                                                      'y': tf.FixedLenFeature([], tf.int64)})
        x, y = tf.train.batch([parsed['x'], parsed['y']], batch_size=batch_size)
        return {'x': x}, y
    return input_fn
'''
_CORE = '''

def train(files, model_dir):
    estimator = tf.estimator.LinearClassifier([tf.feature_column.numeric_column('x', shape=[3])], model_dir)
    estimator.train(input_fn=make_input_fn(files, 10))
'''
_DATASET_RETURN = "return dataset.map(lambda x, y: ({'x': x}, y))"
_TENSORS = "x, y = dataset.make_one_shot_iterator().get_next()\n        return {'x': x}, y"


def _migrate(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)])}


def test_an_input_fn_a_core_estimator_of_its_module_trains_on_returns_its_dataset(tmp_path):
    output = _migrate(tmp_path, {"inputs.py": _INPUT_FN + _CORE})["inputs.py"].new_source.decode()
    assert _DATASET_RETURN in output


def test_an_input_fn_no_estimator_of_its_module_takes_returns_tensors(tmp_path):
    # Its Estimator is elsewhere, maybe tf.contrib.learn's, which unpacks `features, labels = input_fn()`.
    output = _migrate(tmp_path, {"inputs.py": _INPUT_FN})["inputs.py"].new_source.decode()
    assert _TENSORS in output and _DATASET_RETURN not in output


def test_an_input_fn_for_a_contrib_learn_estimator_returns_tensors(tmp_path):
    learn = _CORE.replace("tf.estimator.LinearClassifier", "tf.contrib.learn.LinearClassifier").replace(
        "estimator.train(", "estimator.fit(")
    output = _migrate(tmp_path, {"inputs.py": _INPUT_FN + learn})["inputs.py"].new_source.decode()
    assert _TENSORS in output


def test_a_module_that_also_refers_to_contrib_learn_returns_tensors(tmp_path):
    text = _INPUT_FN + _CORE + "\nTRAIN = tf.contrib.learn.ModeKeys.TRAIN\n"
    output = _migrate(tmp_path, {"inputs.py": text})["inputs.py"].new_source.decode()
    assert _TENSORS in output


def test_an_estimator_bound_twice_proves_nothing(tmp_path):
    text = _INPUT_FN + _CORE.replace("    estimator.train(", "    estimator = make(estimator)\n    estimator.train(")
    output = _migrate(tmp_path, {"inputs.py": text})["inputs.py"].new_source.decode()
    assert _TENSORS in output


def test_a_train_spec_is_a_core_consumer(tmp_path):
    spec = "\n\nSPEC = tf.estimator.TrainSpec(input_fn=make_input_fn(['a'], 10), max_steps=5)\n"
    output = _migrate(tmp_path, {"inputs.py": _INPUT_FN + spec})["inputs.py"].new_source.decode()
    assert _DATASET_RETURN in output


def test_another_module_naming_the_factory_keeps_tensors(tmp_path):
    # A test of the program's own calls the input_fn and unpacks what it gives.
    other = ("import inputs\n\n\ndef test_shapes():\n"
             "    features, labels = inputs.make_input_fn(['a'], 4)()\n    return features['x'], labels\n")
    results = _migrate(tmp_path, {"inputs.py": _INPUT_FN + _CORE, "test_inputs.py": other})
    output = results["inputs.py"].new_source.decode()
    assert _TENSORS in output and _DATASET_RETURN not in output
