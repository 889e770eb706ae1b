"""Batching helpers whose batched list (the row) is built in Python from their parameters.

    def build_batch(image, label, batch_size, shuffle):
        if isinstance(label, list):       # the row statement
            row = [image] + label
        else:
            row = [image, label]
        if shuffle:
            return tf.train.shuffle_batch(row, batch_size=batch_size, ...)
        return tf.train.batch(row, batch_size=batch_size, ...)

The row is Python structure decided when the graph is built: `label` is one tensor or a list of
tensors. `find_row` accepts one statement binding the row before the batching, either
`row = <row>` or `if isinstance(p, list): row = <row> else: row = <row>`, where each <row> is a
list display of parameters, or such a display concatenated with a parameter `p` tested by the
isinstance (only in the arm where it is a list). The parameters read there are the helper's
tensors; those tested are `listed` (they may be lists of tensors).

Contract of the migration (helpers.migrate_batch_helper, batch_down.migrated_body): the row
statement stays, and the helper returns `row` built from the batch, as tf.train.batch returned a
list of as many batched tensors. Callers (recognise._helper_batching, engine._feed_helper) give
each listed parameter a non-empty list display, or a value that is a list of tensors or a tensor
when the map function is traced, so the row holds two tensors or more (an empty list, which would
make a row of one that the queue gives back as a lone tensor, is taken not to be given). The dataset's element holds a
list argument as a tuple (tf.data nests tuples; it would stack a list); the caller turns it back
into a list before the call (`list_argument`). An argument that is not a list display (`label`,
`read_input["label"]`) is tested where the map function returns it: whether it is a list is
decided when the function is traced, as the helper decided it when the graph was built. Like every
batched argument qmigrate hands down, it is taken to be a tensor when it is no list (a tuple,
which tf.train.batch would stack into one tensor, would nest in the dataset's element instead).
"""
from typing import List, Optional, Tuple

import libcst as cst

from qmigrate import cstutil


def find_row(body: List[cst.BaseStatement], name: str, params: List[str]):
    """(row statement, tensor parameters in order of first use, listed parameters) when exactly
    one statement of `body` (the statements before the batching) binds `name` and it builds a
    row as described above; None otherwise."""
    binders = [stmt for stmt in body if name in cstutil.name_uses(stmt).stores]
    if len(binders) != 1 or name in params or any(name in cstutil.name_uses(stmt).mutated for stmt in body):
        return None  # `row.append(x)` would change it after the statement that builds it
    stmt = binders[0]
    listed: Tuple[str, ...] = ()
    if isinstance(stmt, cst.If):
        tested = _isinstance_list(stmt.test, params)
        if tested is None or not isinstance(stmt.orelse, cst.Else):
            return None
        arms = [(_only_assign(stmt.body, name), (tested,)), (_only_assign(stmt.orelse.body, name), ())]
        listed = (tested,)
    else:
        arms = [(_only_assign(stmt, name), ())]
    tensors: List[str] = []
    for value, lists in arms:
        names = _row_names(value, lists, params) if value is not None else None
        if names is None:
            return None
        tensors += [n for n in names if n not in tensors]
    if any(n not in tensors for n in listed):
        return None
    if any(set(tensors) & (cstutil.name_uses(other).stores | cstutil.name_uses(other).mutated) for other in body):
        return None  # the migrated helper would work on the batch what worked on one record
    return stmt, tuple(tensors), listed


def _isinstance_list(test, params) -> Optional[str]:
    """`p` of `isinstance(p, list)`, p a parameter."""
    if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
            and len(test.args) == 2 and not any(a.keyword or a.star for a in test.args)):
        return None
    subject, kind = test.args[0].value, test.args[1].value
    if isinstance(subject, cst.Name) and subject.value in params and isinstance(kind, cst.Name) \
            and kind.value == "list":
        return subject.value
    return None


def _only_assign(node, name) -> Optional[cst.BaseExpression]:
    """The value of `name = value`, the one statement of a block (or the statement itself)."""
    if isinstance(node, cst.IndentedBlock):
        if len(node.body) != 1:
            return None
        node = node.body[0]
    assign = cstutil.single_assign(node)
    if assign is None or not (isinstance(assign[0], cst.Name) and assign[0].value == name):
        return None
    return assign[1]


def _row_names(value, lists, params) -> Optional[List[str]]:
    """The parameters a row expression lists: `[a, b]`, or `[a] + p` / `p + [a]` for p in `lists`."""
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):
        left, right = (_row_names(side, lists, params) for side in (value.left, value.right))
        return left + right if left is not None and right is not None else None
    if isinstance(value, cst.Name) and value.value in lists:
        return [value.value]
    if isinstance(value, cst.List) and value.elements and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Name) and e.value.value in params
            for e in value.elements):
        names = [e.value.value for e in value.elements]
        return names if not set(names) & set(lists) else None
    return None


def as_element(argument: cst.BaseExpression) -> Tuple[Optional[cst.BaseExpression], str]:
    """The argument of a listed parameter as the map function returns it (list displays become
    tuple displays, also in the arms of `a if c else [b, d]`), or None and why not."""
    if isinstance(argument, cst.IfExp):
        body, why = as_element(argument.body)
        orelse, why_else = as_element(argument.orelse)
        if body is None or orelse is None:
            return None, why or why_else
        space = cst.SimpleWhitespace(" ")  # one line: the arms may have been split over several
        return argument.with_changes(body=body, orelse=orelse, whitespace_before_if=space, whitespace_after_if=space,
                                     whitespace_before_else=space, whitespace_after_else=space), ""
    if isinstance(argument, cst.List):
        if not argument.elements or any(not isinstance(e, cst.Element) or isinstance(e.value, (cst.List, cst.Tuple))
                                        for e in argument.elements):
            return None, "a list that is empty, starred or holds lists"
        return cst.Tuple(elements=[e.with_changes(comma=cst.MaybeSentinel.DEFAULT) for e in argument.elements],
                         lpar=[cst.LeftParen()], rpar=[cst.RightParen()]), ""
    if isinstance(argument, (cst.Subscript, cst.Attribute, cst.Name)) and _plain_read(argument):
        # A list or a tensor, known when the map function is traced (once, when the dataset is made).
        code = cst.Module([]).code_for_node(argument.with_changes(lpar=[], rpar=[]))
        return cst.parse_expression("(tuple(%s) if isinstance(%s, list) else %s)" % (code, code, code)), ""
    return None, "`%s`, which is neither a list display nor a name, attribute or subscript of names and " \
        "literals (read three times where the dataset's element is made)" % cst.Module([]).code_for_node(argument)


def _plain_read(node) -> bool:
    """A name, `a.b`, `a["k"]` or `a[0]` (of such): reading it again gives the same value."""
    if isinstance(node, cst.Name):
        return True
    if isinstance(node, cst.Attribute):
        return _plain_read(node.value)
    if isinstance(node, cst.Subscript):
        return (len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
                and isinstance(node.slice[0].slice.value, (cst.SimpleString, cst.Integer)) and _plain_read(node.value))
    return False


def list_argument(name: str) -> str:
    """The batched value of a listed parameter given back as its caller built it."""
    return "list(%s) if isinstance(%s, tuple) else %s" % (name, name, name)
