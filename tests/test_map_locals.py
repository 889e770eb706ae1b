"""Names the per-record code rebinds that are bound before it (map_locals), parameters the map
function captures (captured_params), and item handlers whose unseen code cannot run at all
(item_handlers.never_bound): what migrates, and what stays with why."""
import ast
import os

import libcst as cst
import pytest

from qmigrate import api, captured_params, item_handlers
from qmigrate.names import ImportMap
from qmigrate.rules.base import Unsupported
from qmigrate.slim_modules import ModuleView

INPUTS = '''import tensorflow as tf


def inputs(files, batch_size, step, limit=None):
    queue = tf.train.string_input_producer(files, num_epochs=1)
    _, serialized = tf.TFRecordReader().read(queue)
    x = tf.parse_single_example(serialized, {'x': tf.FixedLenFeature([3], tf.float32)})['x']
    scale = None
    if limit is not None:
        scale = tf.minimum(tf.reduce_max(x), limit)
    if scale is not None:
        x = x / scale
    x = x * tf.to_float(step)
    return tf.train.batch([x], batch_size=batch_size)
'''

MODEL = '''import tensorflow as tf


class Net(object):
    def __init__(self):
        self.global_step = tf.train.get_or_create_global_step()
        self.size = 8
'''


def _migrate(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)])}


def _refusals(result):
    return [d.message for d in result.diagnostics if not d.fixed and "not rewritten" in d.message]


def test_an_outer_name_rebound_per_record_is_copied_into_the_map_function(tmp_path):
    caller = "import inputs\n\nbatch = inputs.inputs(['a'], 4, 10, limit=2.0)\n"
    output = _migrate(tmp_path, {"inputs.py": INPUTS, "train.py": caller})["inputs.py"].new_source.decode()
    assert "        scale_2 = scale\n" in output and "        limit_2" not in output
    assert "if scale_2 is not None:\n            x = x / scale_2" in output
    assert output.index("    scale = None\n") < output.index("dataset.map(")  # bound before the trace


def test_a_variable_passed_from_another_module_keeps_the_pipeline_and_says_where(tmp_path):
    caller = "import inputs\nimport model\n\nnet = model.Net()\nbatch = inputs.inputs(['a'], 4, net.global_step)\n"
    results = _migrate(tmp_path, {"inputs.py": INPUTS, "model.py": MODEL, "train.py": caller})
    assert results["inputs.py"].new_source is None
    reasons = _refusals(results["inputs.py"])
    assert reasons and all("reads `step`, a parameter of inputs(), and the call at train.py:5 passes "
                           "`net.global_step`, and `global_step` is bound to a variable, placeholder or random op "
                           "at model.py:6" in message for message in reasons), reasons


def test_python_values_passed_from_another_module_let_it_migrate(tmp_path):
    caller = "import inputs\nimport model\n\nnet = model.Net()\nbatch = inputs.inputs(['a'], net.size, 3)\n"
    results = _migrate(tmp_path, {"inputs.py": INPUTS, "model.py": MODEL, "train.py": caller})
    assert results["inputs.py"].new_source is not None and not _refusals(results["inputs.py"])


def test_a_binding_is_looked_for_in_the_modules_related_to_the_caller_by_imports(tmp_path):
    """The object is made by the script that imports the caller's module (its importer) from a
    module the caller never imports: that binding counts; the same name bound to a variable in a
    module no importer of the caller reaches (another program of the run) does not."""
    trainer = "import inputs\n\n\ndef run(net):\n    return inputs.inputs(['a'], 4, net.global_step)\n"
    main = "import model\nimport trainer\n\ntrainer.run(model.Net())\n"
    (tmp_path / "related").mkdir()
    related = _migrate(tmp_path / "related", {"inputs.py": INPUTS, "model.py": MODEL, "trainer.py": trainer,
                                              "main.py": main})
    assert related["inputs.py"].new_source is None
    assert all("at model.py:6" in message for message in _refusals(related["inputs.py"]))
    (tmp_path / "apart").mkdir()
    apart = _migrate(tmp_path / "apart", {"inputs.py": INPUTS, "trainer.py": trainer, "other.py": MODEL})
    assert apart["inputs.py"].new_source is not None and not _refusals(apart["inputs.py"])


def test_a_rebinding_read_after_the_batch_stays(tmp_path):
    source = INPUTS.replace("    return tf.train.batch([x], batch_size=batch_size)\n",
                            "    batch = tf.train.batch([x], batch_size=batch_size)\n    return batch, scale\n")
    result = _migrate(tmp_path, {"inputs.py": source})["inputs.py"]
    assert result.new_source is None
    assert any("`scale` is also used outside the record path" in m for m in _refusals(result))


def test_a_global_rebound_per_record_stays(tmp_path):
    source = INPUTS.replace("    scale = None\n", "    global scale\n    scale = None\n")
    result = _migrate(tmp_path, {"inputs.py": source})["inputs.py"]
    assert result.new_source is None
    assert any("`scale` is declared global or nonlocal" in m for m in _refusals(result)), _refusals(result)


def test_stateful_call_sees_keywords_starred_calls_and_bindings():
    tree = ast.parse("f(a, step=tf.train.get_global_step())\nf(*args)\ns = tf.Variable(0)\nf(1, s)\nf(1, 2)\n")
    bound = captured_params.stateful_bindings(tree)
    assert bound == {"s": 3}
    where = (lambda name: "line %d" % bound[name] if name in bound else None)
    assert captured_params.stateful_call(tree, "f", "step", 1, where)[0] == 1
    assert captured_params.stateful_call(ast.parse("f(*args)\n"), "f", "step", 1, where)[0] == 1
    assert captured_params.stateful_call(ast.parse("f(1, s)\n"), "f", "step", 1, where)[0] == 1
    assert captured_params.stateful_call(ast.parse("f(1, 2)\nf(s)\n"), "f", "step", 1, where) is None


def test_never_bound_names_only_a_module_that_cannot_read_it():
    module = cst.parse_module("import numpy as np\n\ndef f(x):\n    return functional_ops.map_fn(g, x)\n")
    assert item_handlers.never_bound(module, "functional_ops")
    assert not item_handlers.never_bound(module, "np")
    for binding in ("functional_ops = None\n", "from m import *\n", "def g(functional_ops): pass\n",
                    "globals()['functional_ops'] = 1\n", "f(functional_ops=1)\n"):
        assert not item_handlers.never_bound(cst.parse_module(binding + module.code), "functional_ops"), binding
    assert not item_handlers.never_bound(module, "len")  # a builtin


HANDLER = '''import tensorflow as tf

slim = tf.contrib.slim


class Raw(slim.tfexample_decoder.ItemHandler):
    def __init__(self, key, repeated=False):
        super(Raw, self).__init__([key])
        self._key, self._repeated = key, repeated

    def tensors_to_item(self, keys_to_tensors):
        if self._repeated:
            return functional_ops.map_fn(lambda x: self._decode(x), keys_to_tensors[self._key])
        return self._decode(keys_to_tensors[self._key])

    def _decode(self, buffer):
        return tf.decode_raw(buffer, tf.uint8)
'''


def _check_handler(source):
    module = cst.parse_module(source)
    cls = next(stmt for stmt in module.body if isinstance(stmt, cst.ClassDef))
    item_handlers.check_handler_class(ModuleView(module, ImportMap(module), line_of=lambda node: 0), cls)


def test_a_handler_calling_through_a_name_the_module_never_binds_decodes_in_a_map_function():
    _check_handler(HANDLER)  # `functional_ops.map_fn(...)` raises NameError wherever it runs
    with pytest.raises(Unsupported, match="runs code of `m.functional_ops`"):
        _check_handler(HANDLER.replace("slim = tf.contrib.slim\n",
                                       "slim = tf.contrib.slim\nfrom m import functional_ops\n"))


def test_a_caller_the_stdlib_parser_rejects_is_not_seen(tmp_path):
    caller = "import inputs\nprint 'python 2'\nbatch = inputs.inputs(['a'], 4, step)\n"
    results = _migrate(tmp_path, {"inputs.py": INPUTS, "train.py": caller})
    assert results["inputs.py"].new_source is not None and not _refusals(results["inputs.py"])
