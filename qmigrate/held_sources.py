"""Record-source methods whose reader and file queue are kept on the object, made in __init__.

The shape: `self.reader = tf.TextLineReader()` and `self.queue = tf.train.string_input_producer(
files, num_epochs=epochs, ...)` in `__init__` (from values only __init__ can see: its parameters,
its locals), and a method that opens with `_, record = self.reader.read(self.queue)`, parses the
record and returns what it parsed, batched by a caller (`image, label = self._get_image()`).

Migrated: the producer's part of the pipeline (the file names, shuffled and repeated as the
producer did) is built where the producer was, in __init__, and kept on the object under the
attribute the queue had (`self.queue = tf.data.Dataset.from_tensor_slices(files)` ...); the reader's
binding goes; the method takes the record (helpers.migrate_record_source); its caller's dataset
starts from that attribute (model.FileSource.held) and continues the chain: the reader's dataset by
flat_map, the per-record code by map, the caller's batching. The producer's epochs repeat the file
names there, before the read (the epochs are __init__'s values): a shuffle_batch's buffer then
spans epoch ends, as its queue did (a chain written in one place uses shuffle_and_repeat instead).

Contract (`find` returns None, or a RecordSource whose `held` is set, only when all hold):
- the method's body (after a docstring) opens with that read, ends with its one `return`, and
  reads neither attribute again;
- each attribute is bound once in the class (class_attrs.binding), in __init__, at its top level,
  the queue by `string_input_producer` and the reader by a file reader whose arguments read only
  literals and module-level names (its dataset is made in the caller);
- each attribute is read once in the class (that read) and named nowhere else in the module;
- the method is named once in the module (one caller: two would share the queue's records, where
  two datasets over one held dataset would each read them all).
The caller (recognise) adds: the batching method is named once in its module and in no loop,
lambda or comprehension there, and neither it nor the two attributes are named in another module
of the run (the run reruns the module knowing those mentions: FileAnalysis.record_attributes).
Calls from outside the run cannot be seen.
"""
import dataclasses
from typing import Callable, List, Optional, Tuple

import libcst as cst

from qmigrate import class_attrs, cstutil, helpers, synth
from qmigrate.model import FileSource, Pipeline, Batching
from qmigrate.names import ImportMap, dotted
from qmigrate.rules import PRODUCERS, READERS, rule_for
from qmigrate.rules.producers import StringInputProducer


def _read_opening(method: cst.FunctionDef) -> Optional[Tuple[str, str, cst.BaseStatement, str, str, list]]:
    """(reader attribute, queue attribute, read statement, key, record, the rest of the body) when
    the method opens with `key, record = self.<reader>.read(self.<queue>)`."""
    if not isinstance(method.body, cst.IndentedBlock) or not method.params.params:
        return None
    self_name = method.params.params[0].name.value
    body = list(method.body.body)
    if body and cstutil.is_docstring(body[0]):
        body = body[1:]
    if len(body) < 2 or not isinstance(cstutil.single_small(body[-1]), cst.Return):
        return None
    assign = cstutil.single_assign(body[0])
    if assign is None:
        return None
    target, value = assign
    value = helpers.plain_read_call(value)
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "read"
            and len(value.args) == 1 and value.args[0].keyword is None and not value.args[0].star):
        return None
    reader, queue = value.func.value, value.args[0].value
    if not all(isinstance(node, cst.Attribute) and dotted(node.value) == self_name for node in (reader, queue)):
        return None
    if not (isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2
            and all(isinstance(e.value, cst.Name) for e in target.elements)):
        return None
    key, record = (e.value.value for e in target.elements)
    return reader.attr.value, queue.attr.value, body[0], key, record, body[1:]


def find(method: cst.FunctionDef, attrs_of: Callable[[cst.FunctionDef], Optional[class_attrs.ClassAttrs]],
         imports: ImportMap, module_names) -> Optional[helpers.RecordSource]:
    """The method as a record source whose reader and queue are held by the object (see the
    module docstring), or None. `attrs_of(method)`: its class's attribute uses (None: not a method)."""
    opening = _read_opening(method)
    if opening is None:
        return None
    attrs = attrs_of(method)
    if attrs is None:
        return None
    reader_attr, queue_attr, read_stmt, key, record, rest = opening
    uses = cstutil.name_uses(cst.IndentedBlock(body=rest))
    if uses.control - {"return"} or len(cstutil.own_returns(cst.IndentedBlock(body=rest))) != 1:
        return None
    if (key != "_" and key in uses.loads) or record == key:
        return None
    if record in {p.name.value for p in method.params.params}:
        return None
    init = attrs.methods.get("__init__")
    bound = []
    for attr, family in ((queue_attr, PRODUCERS), (reader_attr, READERS)):
        try:
            binding = attrs.binding(attr)
        except class_attrs.NotProven:
            return None
        rule = rule_for(imports.resolve(binding.value.func)) if isinstance(binding.value, cst.Call) else None
        if rule not in family or binding.method is not init or attrs.uses_of(attr) != 2:
            return None  # (its binding and the read)
        if not any(leaf is binding.statement for leaf in init.body.body):
            return None  # at the top level of __init__ only: it runs once, before any method
        bound.append((binding, rule))
    (queue, producer_rule), (reader, reader_rule) = bound
    if producer_rule is not StringInputProducer:
        return None  # (input_producer's rows are tensors, not file names)
    if not set(cstutil.name_uses(reader.value).loads) <= set(module_names):
        return None  # the reader's dataset is made in the caller: its arguments must mean the same there
    if attrs.uses_of(method.name.value) != 1:
        return None
    return helpers.RecordSource(method, record, producer_rule, queue.value, reader_rule, reader.value,
                                removable=(read_stmt,), dropped_params=(), held=(queue, reader))


def caller_bound(source: helpers.RecordSource, on_object: cst.BaseExpression):
    """The producer's arguments as the caller sees them: the held dataset under the queue's
    attribute of the object the caller calls the method on; nothing to shuffle or repeat there."""
    queue = source.held[0]
    return {"string_tensor": cst.Attribute(on_object, cst.Name(queue.attr)), "shuffle": cst.Name("False")}


def held_source(files: str) -> FileSource:
    """The caller's source: the dataset of file names held under `files` (`self.queue`)."""
    return FileSource(files, shuffle=False, held=True)


def init_statements(producer: FileSource, attribute: str, tf: str, target) -> List[str]:
    """The statements that build the file names' dataset where the producer was (its own scope's
    names in `producer`), into `attribute` (`self.queue`): from_tensor_slices, the producer's
    per-epoch shuffle, its epochs."""
    pipeline = Pipeline(producer, None, None, Batching("1"), dataset_name=attribute)
    return synth.head_statements(pipeline, tf, target) + [synth.repeat_statement(pipeline)]


def with_replacement(binding: class_attrs.Binding, statements) -> class_attrs.Binding:
    """The binding to replace by `statements` (none: removed), though the method that reads the
    attribute still does when the class is rewritten (its read goes with the helpers' pass)."""
    return dataclasses.replace(binding, replacement=tuple(statements))
