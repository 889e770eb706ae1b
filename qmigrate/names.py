"""Resolve the names a module uses to canonical TensorFlow names, alias-proof.

Cheaper than libcst's QualifiedNameProvider (no scope analysis) and it also follows the
module-level assignment aliases legacy code loves (`slim = tf.contrib.slim`).
"""
import ast
import functools
from typing import Dict, Optional

import libcst as cst

from qmigrate import astindex, cstutil

# Other spellings of the same symbols, longest prefix first. The canonical form is the public
# TF 1.x path (`tensorflow.train.batch`, `tensorflow.TFRecordReader`).
_PREFIX_ALIASES = (
    ("tensorflow.compat.v1.", "tensorflow."),
    ("tensorflow.python.training.input.", "tensorflow.train."),
    ("tensorflow.python.training.coordinator.", "tensorflow.train."),
    ("tensorflow.python.training.queue_runner_impl.", "tensorflow.train."),
    ("tensorflow.python.training.queue_runner.", "tensorflow.train."),
    ("tensorflow.python.training.training.", "tensorflow.train."),
    ("tensorflow.python.ops.io_ops.", "tensorflow."),
    ("tensorflow.python.ops.data_flow_ops.", "tensorflow."),
    ("tensorflow.train.queue_runner.", "tensorflow.train."),
    ("tensorflow.python.lib.io.tf_record.", "tensorflow.python_io."),
    ("tensorflow.io.TFRecord", "tensorflow.python_io.TFRecord"),
    ("tensorflow.contrib.slim.python.slim.data.prefetch_queue.", "tensorflow.contrib.slim.prefetch_queue."),
    ("tensorflow.contrib.slim.python.slim.data.parallel_reader.", "tensorflow.contrib.slim.parallel_reader."),
    ("tensorflow.contrib.slim.python.slim.data.dataset_data_provider.",
     "tensorflow.contrib.slim.dataset_data_provider."),
    ("tensorflow.contrib.slim.python.slim.queues.", "tensorflow.contrib.slim.queues."),
    ("tensorflow.contrib.training.python.training.bucket_ops.", "tensorflow.contrib.training."),
    ("tensorflow.contrib.training.python.training.sampling_ops.", "tensorflow.contrib.training."),
    ("tensorflow.contrib.training.python.training.sequence_queueing_state_saver.", "tensorflow.contrib.training."),
    ("tensorflow.python.estimator.inputs.queues.feeding_queue_runner.", "tensorflow.contrib.training."),
    ("tensorflow.python.training.supervisor.", "tensorflow.train."),
    ("tensorflow.python.training.monitored_session.", "tensorflow.train."),
    ("tensorflow.contrib.learn.python.learn.learn_io.graph_io.", "tensorflow.contrib.learn."),
    ("tensorflow.contrib.learn.io.", "tensorflow.contrib.learn."),
    ("tensorflow.contrib.learn.python.learn.learn_io.numpy_io.", "tensorflow.contrib.learn."),
    ("tensorflow.contrib.learn.python.learn.learn_io.pandas_io.", "tensorflow.contrib.learn."),
    ("tensorflow.contrib.learn.python.learn.learn_io.generator_io.", "tensorflow.contrib.learn."),
    ("tensorflow.python.estimator.inputs.numpy_io.", "tensorflow.estimator.inputs."),
    ("tensorflow.python.estimator.inputs.pandas_io.", "tensorflow.estimator.inputs."),
    ("tensorflow.contrib.timeseries.python.timeseries.input_pipeline.", "tensorflow.contrib.timeseries."),
    ("tensorflow.contrib.timeseries.python.timeseries.", "tensorflow.contrib.timeseries."),
)


def dotted(node: cst.BaseExpression) -> Optional[str]:
    """`a.b.c` for a Name/Attribute chain, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted(node.value)
        return None if head is None else head + "." + node.attr.value
    return None


@functools.lru_cache(maxsize=4096)  # the same few hundred names are asked about in every module
def canonical(full_name: str) -> str:
    """Map a fully qualified name onto its canonical TF 1.x spelling. `tensorflow.compat.v1.` goes
    first, then the name is mapped as any other (`compat.v1.train.queue_runner.QueueRunner`)."""
    if full_name.startswith("tensorflow.compat.v1."):
        full_name = "tensorflow." + full_name[len("tensorflow.compat.v1."):]
    for prefix, replacement in _PREFIX_ALIASES:
        if full_name.startswith(prefix):
            return replacement + full_name[len(prefix):]
    return full_name


class ImportMap:
    """Which local names stand for which modules/objects in one module.

    Imports anywhere in the file count (legacy code imports inside functions and try blocks);
    a local name rebound by a plain assignment to a resolvable dotted name counts too.
    """

    def __init__(self, module: Optional[cst.Module] = None, tree: Optional[ast.AST] = None):
        """From a libcst module, or (faster, same result) from the stdlib parser's tree."""
        self.aliases: Dict[str, str] = {}
        if tree is not None:
            assignments = _ast_imports(tree, self.aliases)
        else:
            collector = _ImportCollector(self.aliases)
            cstutil.walk(module, collector, statements_only=True)  # imports and assignments are statements
            assignments = collector.assignments
        self.imported = frozenset(self.aliases)  # the names an import binds (not a dotted assignment)
        for target, value in assignments:
            resolved = self.resolve_dotted(value)
            if resolved and target not in self.aliases:
                self.aliases[target] = resolved

    @classmethod
    def of_version(cls, module: cst.Module, base: cst.Module, base_map: "ImportMap") -> "ImportMap":
        """ImportMap(module) for a module made from `base`, whose map is `base_map`: that map
        itself when the statements they share (the very nodes) come in the same order and no
        top-level statement one has and the other does not holds an import or a dotted
        assignment (the map would be made of the same ones in the same order); else a new map."""
        olds, news = {id(s) for s in base.body}, {id(s) for s in module.body}
        if [id(s) for s in module.body if id(s) in olds] != [id(s) for s in base.body if id(s) in news]:
            return cls(module)
        for statement in [s for s in module.body if id(s) not in olds] + [s for s in base.body if id(s) not in news]:
            collector = _ImportCollector({})
            cstutil.walk(statement, collector, statements_only=True)
            if collector.aliases or collector.assignments:
                return cls(module)
        return base_map

    @classmethod
    def from_aliases(cls, aliases) -> "ImportMap":
        """The map of a module whose aliases were collected before (e.g. in a summary)."""
        imports = cls.__new__(cls)
        imports.aliases = dict(aliases)
        imports.imported = frozenset(imports.aliases)  # a summary keeps no distinction: all taken as imported
        return imports

    def resolve_dotted(self, name: str) -> Optional[str]:
        head, _, rest = name.partition(".")
        base = self.aliases.get(head)
        if base is None:
            return None
        return base + ("." + rest if rest else "")

    def resolve(self, node: cst.BaseExpression) -> Optional[str]:
        """Canonical full name of an expression like `tflow.train.batch`, or None."""
        name = dotted(node)
        if name is None:
            return None
        resolved = self.resolve_dotted(name)
        return canonical(resolved) if resolved else None

    def local_name_for(self, full_name: str) -> Optional[str]:
        """A local name bound to exactly `full_name` (e.g. `tf` for `tensorflow`), if any."""
        for local, target in sorted(self.aliases.items()):
            if target == full_name:
                return local
        return None


class _ImportCollector(cst.CSTVisitor):
    def __init__(self, aliases: Dict[str, str]):
        self.aliases = aliases
        self.assignments = []

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted(alias.name)
            if full is None:
                continue
            if alias.asname is not None:
                self.aliases[alias.asname.name.value] = full
            else:
                # `import tensorflow.contrib.slim` binds `tensorflow`.
                head = full.split(".")[0]
                self.aliases[head] = head

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        base = dotted(node.module)
        for alias in node.names:
            name = alias.name.value if isinstance(alias.name, cst.Name) else dotted(alias.name)
            local = alias.asname.name.value if alias.asname is not None else name
            self.aliases[local] = base + "." + name

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            value = dotted(node.value)
            if value is not None and "." in value:
                self.assignments.append((node.targets[0].target.value, value))


def ast_dotted(node) -> Optional[str]:
    """`a.b.c` for a stdlib Name/Attribute chain, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = ast_dotted(node.value)
        return None if head is None else head + "." + node.attr
    return None


def ast_last_name(node) -> Optional[str]:
    """The last name of a stdlib Name or Attribute (`c` of `f().b.c`), else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _ast_imports(tree: ast.AST, aliases: Dict[str, str]):
    """_ImportCollector's work on a stdlib tree, in the same (source) order; returns the assignments."""
    assignments = []
    nodes = sorted(astindex.nodes(tree, ast.Import, ast.ImportFrom, ast.Assign),
                   key=lambda n: (n.lineno, n.col_offset))
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    aliases[head] = head
        elif isinstance(node, ast.ImportFrom):
            if node.level or node.module is None:
                continue
            for alias in node.names:
                if alias.name == "*":
                    continue
                aliases[alias.asname or alias.name] = node.module + "." + alias.name
        elif len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = ast_dotted(node.value)
            if value is not None and "." in value:
                assignments.append((node.targets[0].id, value))
    return assignments
