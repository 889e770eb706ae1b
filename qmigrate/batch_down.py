"""Records handed down: batching helpers that *return* the batch they make.

`helpers.find_batch_helper` knows helpers that assign the batch and work on it
(`images, labels = tf.train.shuffle_batch([image, label], ...)`, then `return images, labels`).
Helpers written to return the batching call itself are recognised here:

    def make_batches(image, label, batch_size, shuffle):
        threads = 4
        if shuffle:
            return tf.train.shuffle_batch([image, label], batch_size=batch_size, ...)
        return tf.train.batch([image, label], batch_size=batch_size, ...)

(one `return <batching>` ending the function, or `if flag:` with one such return, followed by
the other one or in its `else:`). The tensors it batches are its parameters, listed in the call,
or a list built from them before the call (`row`, built_rows.py).

Contract of the migrated helper (`migrate`): it takes the batch in place of the per-record
tensors (the same parameters) and returns what the batching returned, built from the batch:
`[image, label]` for several tensors (tf.train.batch gives back a list), the tensor itself for
one (TF 1.8's dequeue_many gives back a lone tensor). The statements that only configured the
batching go with it (helpers.migrate_batch_helper).

A flag computed at run time (`shuffle=split == 'train'`) picks no arm when qmigrate reads the
call: `runtime_choice` accepts it when the two arms batch alike except for the record shuffle
(and, for one of them, keeping the last, smaller batch: the evaluation arm of a training helper),
and the flag is a test of names, attributes and literals (it is evaluated again where the batch
is made: the same value, as nothing runs between). The dataset then shuffles under that test,
and keeps the last batch under the test of the arm that kept it.
"""
import dataclasses
from typing import List, Optional, Tuple

import libcst as cst

from qmigrate import built_rows, cstutil
from qmigrate.names import ImportMap


def returning_sites(function: cst.FunctionDef, imports: ImportMap, batchers, call_rule, site_class):
    """(sites, flag, removable statements, tensor parameters, row) of a helper ending in the
    return of a batching call (or an `if flag:` choosing between two), or None. `row`: None, or
    (name, statement, tensor parameters, listed parameters) when the call batches a list built
    before it (built_rows.find_row)."""
    if not isinstance(function.body, cst.IndentedBlock) or not function.body.body:
        return None
    params = [p.name.value for p in function.params.params]
    body = list(function.body.body)
    last = body[-1]
    sites, flag, removable = None, None, ()
    single = _returned_batch(last, imports, batchers, call_rule, site_class)
    if single is not None and len(body) >= 2 and _is_flag_if(body[-2], params) and body[-2].orelse is None:
        first = _returned_batch(body[-2].body.body[0], imports, batchers, call_rule, site_class)
        if first is not None:
            sites, flag, removable = [first, single], body[-2].test.value, (body[-2], last)
    if sites is None and single is not None:
        sites, removable = [single], (last,)
    if sites is None and _is_flag_if(last, params) and isinstance(last.orelse, cst.Else):
        arms = [last.body.body[0], last.orelse.body.body[0]] if _one_statement(last.orelse.body) else []
        found = [_returned_batch(arm, imports, batchers, call_rule, site_class) for arm in arms]
        if found and None not in found:
            sites, flag, removable = found, last.test.value, (last,)
    if sites is None:
        return None
    shapes = {_tensor_names(site.call) for site in sites}
    row = None
    if shapes == {None}:  # `row`, built before in Python (built_rows)
        shapes = {_row_name(site.call) for site in sites}
        if len(shapes) != 1 or None in shapes:
            return None
        row = next(iter(shapes))
        found = built_rows.find_row(body[:body.index(removable[0])], row, params)
        if found is None:
            return None
        shapes = {found[1]}
        row = (row,) + found
    if len(shapes) != 1 or None in shapes:
        return None
    tensors = shapes.pop()
    if not set(tensors) <= set(params) or len(set(tensors)) != len(tensors) or flag in tensors:
        return None
    return sites, flag, removable, tensors, row


def tensors_argument(call: cst.Call) -> Optional[cst.BaseExpression]:
    """What a batching call batches: its first argument, given by position or by the keyword the
    batchers name it (`tensors=`, `tensors_list=` for the *_join ones); None when it is passed
    with * or ** or not at all."""
    if any(arg.star for arg in call.args):
        return None
    if call.args and call.args[0].keyword is None:
        return call.args[0].value
    named = [arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value in ("tensors", "tensors_list")]
    return named[0] if len(named) == 1 else None


def _row_name(call: cst.Call) -> Optional[str]:
    """`row` of `batch(row, ...)`."""
    value = tensors_argument(call)
    return value.value if isinstance(value, cst.Name) else None


def _one_statement(block) -> bool:
    return isinstance(block, cst.IndentedBlock) and len(block.body) == 1


def _is_flag_if(stmt, params) -> bool:
    return (isinstance(stmt, cst.If) and isinstance(stmt.test, cst.Name) and stmt.test.value in params
            and _one_statement(stmt.body))


def _returned_batch(stmt, imports, batchers, call_rule, site_class):
    small = cstutil.single_small(stmt)
    if not isinstance(small, cst.Return) or small.value is None:
        return None
    rule = call_rule(small.value, imports, batchers)
    return site_class(rule, small.value, stmt) if rule else None


def _tensor_names(call: cst.Call) -> Optional[Tuple[str, ...]]:
    """The parameter names a batching call lists as its tensors, `[a, b]` or `(a, b)`, or None."""
    tensors = tensors_argument(call)
    if not isinstance(tensors, (cst.List, cst.Tuple)) or not tensors.elements:
        return None
    names = tuple(e.value.value for e in tensors.elements
                  if isinstance(e, cst.Element) and isinstance(e.value, cst.Name))
    return names if len(names) == len(tensors.elements) else None


def migrated_body(body: List[cst.BaseStatement], removable_positions: List[int],
                  tensors: Tuple[str, ...], row: Optional[str] = None) -> List[cst.BaseStatement]:
    """The helper's body with its batching statements (at `removable_positions`, the last ones)
    replaced by the return of what the batching returned, built from the batch (`row`: the
    name of the list it batched, built in Python, of two tensors or more: built_rows)."""
    first = removable_positions[0]
    value = row or (tensors[0] if len(tensors) == 1 else "[%s]" % ", ".join(tensors))
    statement = cst.parse_statement("return %s\n" % value)
    statement = statement.with_changes(leading_lines=body[first].leading_lines)
    return [stmt for i, stmt in enumerate(body) if i not in removable_positions] + [statement]


# Expressions whose value is fixed by the names they read: evaluating one twice in a row gives
# the same value (no call, no subscript that could run user code beyond __getitem__ of a dict).
_PURE = (cst.Name, cst.Attribute, cst.Comparison, cst.BooleanOperation, cst.UnaryOperation,
         cst.Integer, cst.Float, cst.SimpleString)


def is_plain_test(node: cst.BaseExpression) -> bool:
    """A test of names, attributes and literals (`split == 'train'`, `not self.training`)."""
    if isinstance(node, cst.Attribute):
        return is_plain_test(node.value)
    if isinstance(node, cst.Comparison):
        return is_plain_test(node.left) and all(is_plain_test(c.comparator) for c in node.comparisons)
    if isinstance(node, cst.BooleanOperation):
        return is_plain_test(node.left) and is_plain_test(node.right)
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Not) and is_plain_test(node.expression)
    return isinstance(node, _PURE)


def given_test(function: cst.FunctionDef, flag: str, arguments) -> bool:
    """Whether the call passes `flag` itself (a default is written in the helper's scope) as a
    plain test (is_plain_test)."""
    default = next((p.default for p in function.params.params if p.name.value == flag), None)
    value = arguments.get(flag)
    return value is not None and value is not default and is_plain_test(value)


def runtime_choice(first, second, test_source: str) -> Tuple[Optional[object], str]:
    """(one batching that shuffles under `test_source` when the flag's arm `first` shuffles and
    `second` does not, None and why otherwise; an arm that alone keeps the last, smaller batch
    keeps it under its test). `first`/`second`: model.Batching of the if arm and of the other arm."""
    if first.shuffle_condition or second.shuffle_condition:
        return None, "its arms already shuffle under a test of their own"
    if (first.shuffle_buffer is None) == (second.shuffle_buffer is None):
        return None, "its two arms batch differently in more than whether they shuffle the records"
    negated = "not %s" % test_source if test_source.replace(".", "").isidentifier() else "not (%s)" % test_source
    shuffling, plain, test, plain_test = (first, second, test_source, negated) if first.shuffle_buffer else (
        second, first, negated, test_source)
    # One arm may also keep the last, smaller batch where the other drops it (evaluation batches
    # whole epochs with allow_smaller_final_batch=True): the batch stage tests it the same way.
    keep, other = shuffling.allow_smaller_final_batch, plain.allow_smaller_final_batch
    allow = keep
    if keep != other:
        if not (isinstance(keep, bool) and isinstance(other, bool)):
            return None, "its two arms batch differently in more than whether they shuffle the records"
        allow = test if keep else plain_test
    if dataclasses.replace(shuffling, shuffle_buffer=None, seed=None, allow_smaller_final_batch=allow) != \
            dataclasses.replace(plain, allow_smaller_final_batch=allow):
        return None, "its two arms batch differently in more than whether they shuffle the records"
    return dataclasses.replace(shuffling, shuffle_condition=test, allow_smaller_final_batch=allow), ""
