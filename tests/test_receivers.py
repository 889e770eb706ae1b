"""Reading methods called on an object outside its class (qmigrate/receivers.py): followed when the
object's class is proven, refused with the variable or attribute named when it gets as far as a
class but cannot prove the rest, left to the ordinary "not followed" reason otherwise. The drains
of single/instance_receivers and single/static_record_source show what is followed reads the same."""
import libcst as cst
import pytest

from qmigrate import api, class_attrs
from qmigrate.receivers import Receivers, Unresolved

CLASSES = '''import tensorflow as tf


class Records(object):
    def __init__(self, width):
        self.width = width

    def parse_one(self, filename_queue):
        reader = tf.TFRecordReader()
        _, serialized = reader.read(filename_queue)
        return tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})['id']


class Inputs(object):
    def __init__(self):
        self._records = Records(2)

    @property
    def records(self):
        return self._records
'''

CALLER = '''

def batches(files, batch_size):
    decoder = %s
    filename_queue = tf.train.string_input_producer(files)
    example_id = decoder.parse_one(filename_queue)
    return tf.train.batch([example_id], batch_size)
'''


def _migrate(tmp_path, text):
    path = tmp_path / "records.py"
    path.write_text(text)
    [result] = api.migrate([str(path)])
    return result


def _reasons(result):
    return " | ".join(d.message for d in result.diagnostics if not d.fixed)


@pytest.mark.parametrize("made", ["Records(1)", "Inputs().records"])
def test_an_object_of_a_proven_class_is_followed(tmp_path, made):
    result = _migrate(tmp_path, CLASSES + CALLER % made)
    assert all(d.fixed for d in result.diagnostics), _reasons(result)
    output = result.new_source.decode()
    assert "def parse_one(self, serialized):" in output
    assert "decoder.parse_one(serialized)" in output


def test_a_module_level_instance_is_followed(tmp_path):
    text = CLASSES + "\n\nDECODER = Inputs().records\n" + (CALLER % "DECODER").replace("decoder.", "DECODER.")
    result = _migrate(tmp_path, text)
    assert all(d.fixed for d in result.diagnostics), _reasons(result)


@pytest.mark.parametrize("change, reason", [
    (("        self._records = Records(2)\n",
      "        self._records = Records(2)\n\n    def reset(self):\n        self._records = Records(3)\n"),
     "`self._records` is assigned in several places"),
    (("        return self._records\n", "        print('read')\n        return self._records\n"),
     "the property Inputs.records does more than return an attribute of the object"),
    (("        self._records = Records(2)\n", "        self._records = Records(2) if tf else None\n"),
     "which is not bound to a new instance of a class of this module"),
    (("class Inputs(object):", "class Inputs(Records):"), "class Inputs derives from another class"),
    (("    decoder = Inputs().records\n", "    decoder = Inputs().records\n    if batch_size > 2:\n"
                                           "        decoder = Records(1)\n"), "`decoder` is bound more than once"),
])
def test_an_object_whose_class_is_not_proven_stays_with_the_reason(tmp_path, change, reason):
    text = (CLASSES + CALLER % "Inputs().records").replace(*change)
    result = _migrate(tmp_path, text)
    assert result.new_source is None or "TFRecordReader()" in result.new_source.decode()
    assert reason in _reasons(result)
    assert "it calls Records.parse_one(), a method that reads a queue, on `decoder`" in _reasons(result)


@pytest.mark.parametrize("made", ["make_records()", "records_module.Records(1)"])
def test_an_object_not_made_here_is_not_followed(tmp_path, made):
    result = _migrate(tmp_path, CLASSES + CALLER % made)
    assert result.new_source is None or "TFRecordReader()" in result.new_source.decode()
    assert "does not follow" in _reasons(result)


def test_another_call_of_the_method_keeps_it_as_it_is(tmp_path):
    """peek() still hands parse_one() a queue: it stays, and the pipeline calls its migrated copy
    on the proven object (method_copies.py)."""
    text = CLASSES + CALLER % "Records(1)" + "\n\ndef peek(queue):\n    return Records(1).parse_one(queue)\n"
    result = _migrate(tmp_path, text)
    output = result.new_source.decode()
    assert "def parse_one(self, filename_queue):" in output and "def parse_one_from_record(self, serialized):" in output
    assert "example_id = decoder.parse_one_from_record(serialized)" in output
    assert "parse_one() is kept as it was" in _reasons(result)


def _class_of(text, expression, function="f"):
    module = cst.parse_module(text)
    scope = next(s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == function)
    receivers = Receivers(module, class_attrs.ModuleClasses(module, lambda node: 0))
    found = receivers.class_of(cst.parse_expression(expression), scope)
    return found.name.value if found is not None else None


def test_names_are_followed_only_when_bound_once():
    text = "class A(object):\n    pass\n\n\nx = A()\n\n\ndef f(p):\n    y = A()\n    z = y\n    return p\n"
    assert _class_of(text, "y") == "A"
    assert _class_of(text, "z") == "A"
    assert _class_of(text, "x") == "A"
    assert _class_of(text, "p") is None  # a parameter
    with pytest.raises(Unresolved, match="more than once in the module"):
        _class_of(text.replace("x = A()\n", "x = A()\nx = A()\n"), "x")
    with pytest.raises(Unresolved, match="global"):
        _class_of(text + "\n\ndef g():\n    global x\n    x = None\n", "x")
    with pytest.raises(Unresolved, match="inside an if"):
        _class_of(text.replace("    y = A()\n", "    if p:\n        y = A()\n"), "y")


def test_a_class_that_may_make_another_object_is_not_followed():
    text = "class A(object):\n    def __new__(cls):\n        return 1\n\n\ndef f():\n    y = A()\n"
    assert _class_of(text, "y") is None
    assert _class_of("class A(object):\n    pass\n\n\nA = 3\n\n\ndef f():\n    y = A()\n", "y") is None


def test_a_static_reading_method_takes_the_record_and_its_calls_pass_no_object(tmp_path):
    text = CLASSES.replace("    def parse_one(self, filename_queue):", "    @staticmethod\n    def parse_one(filename_queue):")
    result = _migrate(tmp_path, text + CALLER % "Records(1)")
    assert all(d.fixed for d in result.diagnostics), _reasons(result)
    output = result.new_source.decode()
    assert "    @staticmethod\n    def parse_one(serialized):" in output
    assert "decoder.parse_one(serialized)" in output


def test_an_object_of_another_modules_class_is_said_as_such(tmp_path):
    text = ("import tensorflow as tf\nimport records_module\n\n\ndef batches(files):\n"
            "    decoder = records_module.FeatureIO().reader\n"
            "    x, example_id = decoder.read_features(files, num_epochs=1)\n"
            "    return tf.train.batch([x, example_id], 4)\n")
    result = _migrate(tmp_path, text)
    assert ("`decoder` holds an object made from records_module.FeatureIO() (line 6), a class of another module, "
            "whose reading method qmigrate follows only when that module is migrated in the same run") \
        in _reasons(result)


def test_every_kind_of_binding_counts():
    text = "class A(object):\n    pass\n\n\ndef f(p):\n    y = A()\n    %s\n"
    for other in ("if (y := p):\n        pass", "with p as y:\n        pass", "for y in p:\n        pass",
                  "del y", "import y", "def y():\n        pass"):
        with pytest.raises(Unresolved, match="more than once"):
            _class_of(text % other, "y")
    assert _class_of(text % "def g(y):\n        return y", "y") == "A"  # a nested function's own parameter


def test_a_class_that_may_find_its_attributes_elsewhere_is_not_followed():
    base = "class A(%s):\n    %s\n\n\ndef f():\n    y = A()\n"
    assert _class_of(base % ("object", "pass"), "y") == "A"
    for bases, body in (("object", "def __getattr__(self, name):\n        return 1"),
                        ("object, metaclass=M", "pass"), ("dict", "pass"),
                        ("object", "__getattribute__ = lambda self, name: 1")):
        assert _class_of(base % (bases, body), "y") is None
    assert _class_of("class B(object):\n    pass\n\n\n" + base % ("B", "pass"), "y") == "A"
    assert _class_of("class B(object):\n    def __new__(cls):\n        return 1\n\n\n" + base % ("B", "pass"),
                     "y") is None


def test_a_method_rebound_in_its_class_body_is_not_followed(tmp_path):
    text = CLASSES.replace("class Inputs(object):", "    parse_one = staticmethod(len)\n\n\nclass Inputs(object):")
    result = _migrate(tmp_path, text + CALLER % "Records(1)")
    assert result.new_source is None or "TFRecordReader()" in result.new_source.decode()
