"""Every TensorFlow symbol qmigrate emits exists in the version it emits it for.

The tables in qmigrate/data come from the real wheels (scripts/dump_tf_symbols.py). Checked:
qualified names (`tf.contrib.data.unbatch`), the keywords passed to them, and the methods and
keywords called on datasets and iterators, for every target, over (1) every combination of
pipeline options the synthesiser takes and (2) every golden and rule example migrated for that
target.
"""
import ast
import dataclasses
import glob
import itertools
import os

import pytest

from conftest import TESTDATA
from qmigrate import api, notebooks, synth
from qmigrate.engine import Options
from qmigrate.model import Batching, FileSource, Pipeline, RecordFunction, RecordReader, Sharding, SliceSource
from qmigrate.names import ImportMap, ast_dotted
from qmigrate.rules import ALL_RULES
from qmigrate.targets import TARGETS, VERSIONS, symbol_table

DATASET, ITERATOR = "tensorflow.data.Dataset", "tensorflow.data.Iterator"
_ITERATOR_MAKERS = ("tensorflow.compat.v1.data.make_one_shot_iterator",
                    "tensorflow.compat.v1.data.make_initializable_iterator")


class _References(ast.NodeVisitor):
    """(TF name, keywords) of every call and attribute that touches TensorFlow in a module.

    Names are resolved through the module's imports but not canonicalised: `tf.compat.v1.x` must
    exist as `tensorflow.compat.v1.x`. Datasets and iterators are followed through assignments.
    """

    def __init__(self, tree):
        self.imports = ImportMap(tree=tree)
        self.kinds = {}  # variable -> DATASET | ITERATOR
        self.found = set()

    def kind(self, node):
        """DATASET, ITERATOR or None: what an expression evaluates to."""
        if isinstance(node, ast.Name):
            return self.kinds.get(node.id)
        if isinstance(node, ast.Call):
            func = node.func
            name = self.qualified(func)
            if name in _ITERATOR_MAKERS:
                return ITERATOR
            if name and name.startswith("tensorflow.data.") and name.endswith("Dataset"):
                return DATASET
            if name and name.startswith("tensorflow.data.Dataset."):
                return DATASET
            if isinstance(func, ast.Attribute):
                if func.attr == "setdefault":  # the shared-iterator dict
                    return ITERATOR
                if self.kind(func.value) == DATASET:
                    return ITERATOR if func.attr.startswith("make_") else DATASET
        return None

    def qualified(self, node):
        dotted = ast_dotted(node)
        return self.imports.resolve_dotted(dotted) if dotted else None

    def visit_Assign(self, node):
        self.generic_visit(node)
        kind = self.kind(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name) and kind:
                self.kinds[target.id] = kind

    def visit_Call(self, node):
        keywords = tuple(sorted(k.arg for k in node.keywords if k.arg))
        if not self.add(node.func, keywords):
            self.visit(node.func)
        for child in node.args + node.keywords:
            self.visit(child)

    def visit_Attribute(self, node):
        if not self.add(node, ()):
            self.generic_visit(node)

    def add(self, node, keywords) -> bool:
        """Record a TF name or a dataset/iterator member; False when `node` is neither."""
        name = self.qualified(node)
        if name and name.startswith("tensorflow"):
            self.found.add((name, keywords))  # the whole chain: its prefixes need no check
            return True
        owner = self.kind(node.value) if isinstance(node, ast.Attribute) else None
        if owner:
            self.found.add(("%s.%s" % (owner, node.attr), keywords))
            self.visit(node.value)
            return True
        return False


def references(source):
    visitor = _References(ast.parse(source))
    visitor.visit(ast.parse(source))
    return visitor.found


def missing(found, version):
    """The references the version's wheel does not have: unknown names or keywords it does not take."""
    table = symbol_table(version)
    gaps = []
    for name, keywords in sorted(found):
        if not table.has(name):
            gaps.append(name)
        else:
            gaps += ["%s(%s=)" % (name, k) for k in keywords
                     if table.params[name] is not None and not table.accepts(name, k)]
    return gaps


def test_the_checker_catches_what_1_8_lacks():
    """The check can fail: these are the traps of tf-facts.md."""
    source = ("import tensorflow as tf\n"
              "d = tf.data.Dataset.from_tensor_slices([1])\n"
              "d = d.batch(4, drop_remainder=True)\n"
              "d = d.map(f, num_parallel_calls=tf.data.experimental.AUTOTUNE)\n"
              "d = d.unbatch()\n"
              "it = tf.compat.v1.data.make_one_shot_iterator(d)\n")
    assert missing(references(source), "1.8") == [
        "tensorflow.compat.v1.data.make_one_shot_iterator", "tensorflow.data.Dataset.batch(drop_remainder=)",
        "tensorflow.data.Dataset.unbatch", "tensorflow.data.experimental.AUTOTUNE"]
    assert missing(references(source), "2") == []


def test_every_target_has_a_table_from_its_wheel():
    for version in VERSIONS:
        table = symbol_table(version)
        assert table.has("tensorflow.data.Dataset.from_tensor_slices"), version
        assert table.has("tensorflow.train.string_input_producer") or table.has(
            "tensorflow.compat.v1.train.string_input_producer"), version


def _pipelines():
    """A pipeline for every combination of the options the synthesiser branches on."""
    sources = [FileSource("files"), FileSource("files", "3", False, "7"), FileSource("", pattern="p"),
               SliceSource(("a", "b")),
               SliceSource(("a",), None, False)]
    readers = [RecordReader("tfrecord"), RecordReader("tfrecord", (("compression_type", '"GZIP"'),)),
               RecordReader("fixed_length", (("record_bytes", "8"),)), RecordReader("text_line", skip_lines="1"),
               RecordReader("tfrecord", read_up_to="16"),
               RecordReader("whole_file")]
    functions = [None, RecordFunction("parse_record", ("value",), "value"),
                 RecordFunction("parse_record", ("key", "value"), "key, value")]
    batchings = [Batching("32"), Batching("32", "4", "100", "1", True), Batching("8", enqueue_many=True),
                 Batching("8", dynamic_pad=True), Batching("8", dynamic_pad=True, allow_smaller_final_batch=True),
                 Batching("8", keep_input="keep"), Batching("1"), Batching("1", shuffle_buffer="10")]
    shapes = [{}, {"sharding": Sharding("num_shards", "shard_index")}, {"shared_iterator_key": "tower_input"},
              {"sharding": Sharding("num_shards", "shard_index", split_buffer=True)}, {"dense_arity": 1},
              {"dense_arity": 2}]
    for source, reader, function, batching, shape in itertools.product(sources, readers, functions, batchings,
                                                                       shapes):
        if isinstance(source, SliceSource):
            reader = None
        yield dataclasses.replace(Pipeline(source, reader, function, batching), **shape)


@pytest.mark.parametrize("version", VERSIONS)
def test_synthesised_code_uses_only_what_the_target_has(version):
    target = TARGETS[version]
    found = set()
    for pipeline in _pipelines():
        body = synth.dataset_statements(pipeline, "tf", target) + ["x = " + synth.next_element(pipeline, "tf", target)]
        found |= references("import tensorflow as tf\nshared_iterators = None\n" + "\n".join(body) + "\n")
    assert len(found) > 20
    assert missing(found, version) == []


def _programs():
    """Every golden and rule example, as (name, {path: source})."""
    for before in sorted(glob.glob(os.path.join(TESTDATA, "single", "*.before.py"))):
        yield before, [before]
    for scenario in sorted(glob.glob(os.path.join(TESTDATA, "towers", "*", "before"))):
        yield scenario, scenario
    for rule in ALL_RULES:
        for index, example in enumerate(rule.examples):
            if example.filename.endswith(".py"):
                yield "%s-%d" % (rule.code, index), example


@pytest.mark.parametrize("version", VERSIONS)
def test_migrated_programs_use_only_what_the_target_has(version, tmp_path):
    """What migration adds to a program exists in the target (the user's own code is theirs)."""
    from test_golden import assemble_program

    gaps = {}
    for number, (name, program) in enumerate(_programs()):
        folder = tmp_path / str(number)
        if isinstance(program, str):
            paths = [assemble_program(program, str(folder))]
        elif isinstance(program, list):
            paths = program
        else:
            folder.mkdir()
            (folder / "example.py").write_text(program.before)
            paths = [str(folder / "example.py")]
        options = Options(target=TARGETS[version], unsafe=True)
        for result in api.migrate(paths, options):
            if result.changed:
                added = references(result.new_source.decode()) - references(result.old_source.decode())
                gap = missing(added, version)
                if gap:
                    gaps["%s of %s" % (os.path.basename(result.path), os.path.basename(str(name)))] = gap
    assert gaps == {}


# Names the symbol tables cannot hold, on purpose, with the reason. Nothing else is excused.
EXCUSED_PREFIXES = {
    "tensorflow.python.": "TensorFlow's private modules, which the examples and goldens reach on purpose "
                          "(`from tensorflow.python.training import input`): the dump walks public namespaces only",
}
# Programs that call APIs TensorFlow removed, on purpose: they show the finding about them (QM906).
REMOVED_ON_PURPOSE = {
    label: "it shows QM906, the finding about APIs the target lacks"
    for label in ("QM906-0", "single/removed_api.before.py", "single/removed_api.after.py")
}
# Programs written for a later TensorFlow than the default target: checked against that version.
WRITTEN_FOR = {
    "QM301-2": ("1.15", "a program through tf.compat.v1 (TF 1.13 and later)"),
}


def unknown_names(names, version):
    """The TF names that the version's table shows do not exist: a name under a namespace the dump
    walked completely (`SymbolTable.missing`), or a member of a class whose members it listed.
    Beyond a class or function it does not list the members of (tf.GraphKeys.X), it cannot tell."""
    table = symbol_table(version)
    gaps = []
    for name in sorted(names):
        if table.has(name) or any(name.startswith(prefix) for prefix in EXCUSED_PREFIXES):
            continue
        parent = name.rpartition(".")[0]
        members_listed = table.params.get(parent) is not None and any(
            other.startswith(parent + ".") for other in table.params)
        if table.missing(name) or members_listed:
            gaps.append(name)
    return gaps


def test_the_name_checker_catches_names_no_tensorflow_has():
    source = ("import tensorflow as tf\n"
              "x = tf.parse_singleexample_source(r, {'x': tf.FixedLenFeature([], tf.float32)})\n"
              "y = tf.parse_single_example(r, {'x': tf.FixedLenFeature([], tf.float32)})\n"
              "d = tf.data.Dataset.from_tensor_slices(files).shuffle_all()\n"
              "u = tf.contrib.data.unbatch_all()\n"
              "v = tf.contrib.data.unbatch()\n"
              "i = tf.image.decode_png(v)\n"
              "c = tf.python_io.TFRecordCompressionType.GZIP\n"
              "t = tf.train.shuffle_batches([x], 2)\n")
    names = {name for name, _ in references(source)}
    assert unknown_names(names, "1.8") == [
        "tensorflow.contrib.data.unbatch_all", "tensorflow.data.Dataset.shuffle_all",
        "tensorflow.parse_singleexample_source", "tensorflow.train.shuffle_batches"]


def _example_and_golden_sources():
    """(label, source) of every rule example's before and after, and every golden file."""
    for rule in ALL_RULES:
        for index, example in enumerate(rule.examples):
            if example.filename.endswith(".py"):
                label = "%s-%d" % (rule.code, index)
                yield label, example.before
                if example.after is not None:
                    yield label, example.after
    for path in sorted(glob.glob(os.path.join(TESTDATA, "**", "*.py"), recursive=True)):
        with open(path, encoding="utf-8") as handle:
            yield os.path.relpath(path, TESTDATA), handle.read()
    for path in sorted(glob.glob(os.path.join(TESTDATA, "**", "*.ipynb"), recursive=True)):
        with open(path, "rb") as handle:
            yield os.path.relpath(path, TESTDATA), notebooks.code_of(handle.read())


def test_every_tf_name_in_rule_examples_and_goldens_exists():
    """Examples and goldens show code that could run: no name TensorFlow never had
    (`tf.parse_singleexample_source` was one), checked against the default target's table."""
    from qmigrate.targets import DEFAULT_TARGET

    gaps, checked, excused_used, labels = {}, 0, set(), set()
    for label, source in _example_and_golden_sources():
        labels.add(label)
        version = WRITTEN_FOR.get(label, (DEFAULT_TARGET,))[0]
        names = {name for name, _ in references(source)}
        checked += len(names)
        excused_used |= {p for p in EXCUSED_PREFIXES for name in names if name.startswith(p)}
        gap = unknown_names(names, version)
        if gap and label not in REMOVED_ON_PURPOSE:
            gaps[label] = gap
    assert gaps == {}
    assert checked > 500
    assert excused_used == set(EXCUSED_PREFIXES), "an excuse no longer needed: remove it"
    assert set(WRITTEN_FOR) <= labels, "a program listed as written for a later TensorFlow is gone"
    for label in REMOVED_ON_PURPOSE:  # each still calls a removed API, or its excuse goes
        source = dict(_example_and_golden_sources())[label]
        assert unknown_names({name for name, _ in references(source)}, DEFAULT_TARGET), label

def test_the_tables_say_which_names_a_version_lacks():
    """`missing` judges names under the namespaces walked completely, and only those."""
    for version in VERSIONS:
        table = symbol_table(version)
        assert {"tensorflow", "tensorflow.image", "tensorflow.nn", "tensorflow.data"} <= table.walked, version
        assert table.missing("tensorflow.image.per_image_whitening"), version  # gone since 1.0
        assert not table.missing("tensorflow.image.per_image_standardization"), version
        assert not table.missing("tensorflow.python.ops.image_ops.anything"), version  # not walked
        assert not table.missing("tensorflow.data.Dataset.not_a_method_judged"), version  # a class
    assert symbol_table("1.8").missing("tensorflow.compat.v1.data.make_one_shot_iterator")
    assert not symbol_table("1.15").missing("tensorflow.compat.v1.data.make_one_shot_iterator")
    assert not symbol_table("1.8").missing("tensorflow.contrib.layers.conv2d")  # contrib is not walked
    assert symbol_table("2").missing("tensorflow.contrib.layers.conv2d")  # no contrib at all
    assert symbol_table("2").missing("tensorflow.placeholder")
    assert not symbol_table("2").missing("tensorflow.compat.v1.placeholder")
