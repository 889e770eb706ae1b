"""Lookup tables in per-record code, which a one-shot iterator's map function cannot hold.

    table = tf.contrib.lookup.index_table_from_tensor(tf.constant(CLASSES))
    ...
    label = table.lookup(features['class'])          # per-record code
    return tf.train.batch([image, label], batch_size)

The queue's thread looked each record up in the graph's table, initialized by
`tf.tables_initializer()`. Moved into `Dataset.map`, measured under TF 1.8: a table made outside the
map function cannot be captured by a one-shot iterator ("does not support datasets that capture
stateful objects, such as a Variable or LookupTable"), and one made inside it is never initialized
("Table not initialized"). So per-record code that looks records up stays as it is.

`lookup_in` answers for a statement: a `.lookup(...)` call (whatever its receiver: a name, an
attribute, a parameter), a call of TensorFlow's table API, or a call of a top-level function of
the module whose body makes either (one level: the usual `parse(serialized)` helper).
"""
import ast
from typing import Callable, Optional

import libcst as cst

from qmigrate import cstutil
from qmigrate.names import ast_last_name

# TensorFlow's table API: whatever these make or do is a table or reads one.
TABLE_APIS = ("tensorflow.contrib.lookup.", "tensorflow.lookup.")

# The last names of the calls that make a table or look a value up (a helper's body is read
# without its imports).
_TABLE_CALLS = frozenset((
    "lookup", "index_table_from_tensor", "index_table_from_file", "index_to_string_table_from_tensor",
    "index_to_string_table_from_file", "string_to_index", "index_to_string", "HashTable", "StaticHashTable",
    "MutableHashTable", "MutableDenseHashTable", "StaticVocabularyTable", "IdTableWithHashBuckets",
    "KeyValueTensorInitializer", "TextFileInitializer"))

REASON = ("the per-record code looks records up in a lookup table (`%s`, line %d): a one-shot iterator's map "
          "function cannot hold one (TF 1.x refuses to capture a table made outside it: \"does not support "
          "datasets that capture stateful objects, such as a Variable or LookupTable\"; one made inside it is "
          "never initialized: \"Table not initialized\"), where the queue's thread used the graph's table; an "
          "initializable iterator, initialized after tf.tables_initializer(), could hold a table made outside it")


def lookup_in(stmt: cst.CSTNode, resolve: Callable[[cst.BaseExpression], Optional[str]],
              tree: Optional[ast.AST]) -> Optional[cst.Call]:
    """The first call of `stmt` that uses a lookup table (above), or None. `resolve` gives a call's
    TensorFlow name; `tree` is the module's stdlib tree, for its top-level helpers."""
    helpers = {node.name: node for node in tree.body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))} if tree is not None else {}
    for call in cstutil.calls_of(stmt):
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "lookup":
            return call
        if (resolve(func) or "").startswith(TABLE_APIS):
            return call
        if isinstance(func, cst.Name) and func.value in helpers and _makes_or_reads_table(helpers[func.value]):
            return call
    return None


def _makes_or_reads_table(function: ast.AST) -> bool:
    return any(isinstance(node, ast.Call) and ast_last_name(node.func) in _TABLE_CALLS for node in ast.walk(function))
