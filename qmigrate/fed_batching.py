"""The per-record code and batching after a Python-fed queue's `dequeue()`: dataset stages too.

    image, label = self.queue.dequeue()            # the queue python_fed turns into from_generator
    if augment:                                    # per-record code: reads the records
        image = tf.image.random_flip_left_right(image)
    image = tf.image.per_image_standardization(image)
    if shuffle:                                    # the batching: one batcher, or one per arm
        images, labels = tf.train.shuffle_batch([image, label], batch_size=n, capacity=c, min_after_dequeue=m)
    else:
        images, labels = tf.train.batch([image, label], batch_size=n, capacity=c)

becomes, where the dequeue was, the generator's dataset followed by `def parse_record(image,
label): <the per-record code>; return image, label`, `dataset.map(parse_record)` (with
`num_parallel_calls=num_threads` of the batcher: its threads ran that code; in each arm when
the arms' differ), each arm's
stages under the same test (`shuffle(m)` for a shuffle_batch, then its batch, dropping the partial
batch unless allow_smaller_final_batch=True, as the queue did), `prefetch(1)` and the batch
targets bound to the iterator's next element. No repeat: the generator alone decides when the
records end (a generator that loops forever gives them forever, as its thread did).

`tail` returns None when no batcher follows the dequeue in its block (the records are read one at
a time, as before), the `Tail` to write otherwise, and for a shape it cannot prove a Tail that
says why (`refused`): the dequeue alone is rewritten, and the batchers keep their queues, which
read the dataset's iterator as they read the dequeue.

Contract (what makes the move meaning-preserving):
- the dequeue is `a, b = q.dequeue()` (or `a = q.dequeue()` for one component) into plain names,
  a statement of the block that also holds the batching, and every statement between them is
  per-record code (chained_records.per_record_work: assignments and expressions reading a record, an
  `if` of those under a plain test): nothing else runs in between, so the map function, defined
  and traced where the dequeue was, sees what that code saw;
- the batching is `x, y = tf.train.batch|shuffle_batch([names], ...)`, or an `if`/`else` (elifs
  allowed) each arm of which is exactly one such statement with the same targets and the same
  list of per-record names, its tests calling nothing and reading no record; their arguments read
  no record either, and have no enqueue_many, shapes=, shared_name= or allow_smaller_final_batch
  given by a test;
- what the per-record code binds is bound nowhere else in the function and read nowhere else (but
  in the batchers' lists), and it captures nothing stateful (a one-shot iterator could not).
"""
import dataclasses
from dataclasses import dataclass
from typing import List, Optional, Sequence

import libcst as cst

from qmigrate import cstutil, synth
from qmigrate.handbuilt import Declined
from qmigrate.returned_dataset import Refused, fresh_name, nested_function, rename_rebound
from qmigrate.rules import rule_for
from qmigrate.rules.base import Unsupported
from qmigrate.targets import Target

_BATCHERS = ("tensorflow.train.batch", "tensorflow.train.shuffle_batch")


@dataclass
class Tail:
    """What the dequeue's record path becomes: the statements that go (per-record code and the
    batching), the lines written after the generator's dataset in place of its `get_next()`, the
    batcher calls now rewritten, and what the finding says of it."""

    removed: List[cst.BaseStatement]
    lines: List[str]
    batchers: List[cst.Call]
    detail: str
    refused: Optional[str] = None  # why the record path stays as it is (the batchers keep their queues)


def tail(tree, body: Sequence[cst.BaseStatement], dequeue_stmt: cst.BaseStatement, resolve, ds: str,
         tf: str, target: Target, one: bool) -> Optional[Tail]:
    """See the module docstring. `tree` is python_fed's _Tree, `ds` the dataset's name, `one`
    whether the queue has one component. A refused shape gives a Tail with `refused` set: the
    dequeue alone becomes the dataset's next record, the batchers stay, saying why."""
    body = list(body)
    at = body.index(dequeue_stmt)
    found = next((i for i in range(at + 1, len(body)) if _batch_calls(body[i], resolve)), None)
    if found is None:
        return None
    batching = body[found]
    try:
        return _tail(tree, body, at, batching, found, dequeue_stmt, resolve, ds, tf, target, one)
    except Declined as error:
        return Tail(removed=[], lines=[], batchers=_batch_calls(batching, resolve), detail="", refused=str(error))


def _tail(tree, body, at, batching, found, dequeue_stmt, resolve, ds, tf, target, one) -> Tail:
    from qmigrate.chained_records import captures_nothing_stateful, per_record_work
    from qmigrate.python_fed import is_reference
    where = tree.where(dequeue_stmt)
    small = cstutil.single_small(dequeue_stmt)
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        raise Declined("its dequeue %s is returned, and a batching follows it" % where)
    names = _names(small.targets[0].target)
    if names is None or (one and not isinstance(small.targets[0].target, cst.Name)) or (
            not one and isinstance(small.targets[0].target, cst.Name)):
        raise Declined("its dequeue %s, batched after it, is not unpacked into one plain name per component" % where)
    function = tree.function(dequeue_stmt)
    owner = function.name.value if function is not None else "the module"
    middle = body[at + 1:found]
    try:
        work, tainted = per_record_work(middle, set(names), resolve, owner)
    except Refused as error:
        raise Declined(str(error))
    others = [stmt for i, stmt in enumerate(middle) if i not in work]
    if others:
        raise Declined("%s, between its dequeue %s and the batching %s, does not work on the records: qmigrate "
                       "moves the per-record code into the map function only when nothing else runs in between"
                       % (tree.where(others[0]), where, tree.where(batching)))
    arms = _arms(tree, batching, resolve)
    first_target, first_list = arms[0][1], arms[0][2]
    tensors = _names(first_list)
    if tensors is None or not isinstance(first_list, (cst.List, cst.Tuple)) or not tensors:
        raise Declined("the batching %s does not batch a list of plain names" % tree.where(arms[0][0]))
    outside = [t for t in tensors if t not in tainted]
    if outside:
        raise Declined("the batching %s also batches `%s`, which is not a record of its dequeue %s"
                       % (tree.where(arms[0][0]), outside[0], where))
    batch_names = _names(first_target)
    if batch_names is None or not isinstance(first_target, (cst.Tuple, cst.List)) or len(batch_names) != len(tensors):
        raise Declined("the batching %s is not unpacked into one plain name per batched tensor"
                       % tree.where(arms[0][0]))
    if any(set(cstutil.name_uses(test).loads) & tainted for test in _tests(batching) if test is not None):
        raise Declined("a test of %s reads a record" % tree.where(batching))
    for stmt, arm_target, arm_list, _ in arms[1:]:
        if tree.text(arm_target) != tree.text(first_target) or tree.text(arm_list) != tree.text(first_list):
            raise Declined("the arms of %s batch other tensors, or into other names (%s): qmigrate maps the records "
                           "once for every arm" % (tree.where(batching), tree.where(stmt)))
    models = []
    for stmt, _, arm_list, call in arms:
        rule = rule_for(resolve(call.func))
        try:
            args = rule.bind(call)
            model = rule.model(args, tree.source, resolve)
        except Unsupported as error:
            raise Declined("the batching %s: %s" % (tree.where(stmt), error))
        read = set(cstutil.name_uses(call).loads) - set(cstutil.name_uses(arm_list).loads)
        if read & tainted or (set(cstutil.name_uses(arm_list).loads) - set(tensors)):
            raise Declined("the batching %s reads a record outside its list of tensors" % tree.where(stmt))
        if model.enqueue_many or model.shapes or not isinstance(model.allow_smaller_final_batch, bool):
            raise Declined("the batching %s has enqueue_many, shapes= or allow_smaller_final_batch given by a test, "
                           "which qmigrate does not write after a generator yet" % tree.where(stmt))
        models.append(model)
    statements = [middle[i] for i in work]
    moved = [dequeue_stmt, batching] + statements
    scope = function or tree.module
    for name in sorted(tainted):  # anywhere in the function (nested blocks and functions included)
        for node in tree.names.get(name, ()):
            if tree.within(node, scope) and is_reference(tree, node) and not any(
                    tree.within(node, stmt) for stmt in moved):
                raise Declined("`%s`, a record of its dequeue %s, is also used by %s, outside the per-record code "
                               "that becomes the map function" % (name, where, tree.where(node)))
    returned = cst.parse_expression(", ".join(tensors))
    try:
        statements, returned = rename_rebound(statements, returned, names, owner)
        captures_nothing_stateful(statements, returned, names, body[:at], resolve, owner)
    except Refused as error:
        raise Declined(str(error))
    taken = set(cstutil.name_uses(scope).stores) | set(cstutil.name_uses(scope).loads) | {ds}
    parse = fresh_name("parse_record", taken)
    config = tree.module.config_for_parsing
    nested = nested_function(parse, names, statements, returned, config)
    lines = ["\n" + tree.module.code_for_node(nested).strip("\n")]  # set apart by blank lines
    mapped = ["%s = %s.map(%s%s)" % (ds, ds, parse, ", num_parallel_calls=%s" % m.num_threads if m.num_threads
                                      else "") for m in models]
    if len(set(mapped)) == 1:
        lines.append("\n" + mapped[0])
        per_arm = [_stages(ds, model, tf, target) for model in models]
    else:  # the batching threads ran the per-record code: as many parallel calls as each arm had threads
        per_arm = [[line] + _stages(ds, model, tf, target) for line, model in zip(mapped, models)]
    if all(stages == per_arm[0] for stages in per_arm):
        lines += per_arm[0]
    else:
        chain = []
        for index, (test, stages) in enumerate(zip(_tests(batching), per_arm)):
            head = "else:" if test is None else "%s %s:" % ("if" if index == 0 else "elif", tree.source(test))
            chain.append(head + "".join("\n    " + line for line in stages))
        lines.append(("\n" if len(set(mapped)) > 1 else "") + "\n".join(chain))
    lines.append("%s = %s.prefetch(1)" % (ds, ds))
    element = "%s.get_next()" % synth._one_shot(ds, tf, target)
    lines.append("%s = %s" % (batch_names[0] if len(batch_names) == 1 else ", ".join(batch_names), element))
    detail = ("the per-record code after its dequeue %s is the map function `%s`, and %s stages of the "
              "dataset, not repeated: the generator decides when the records end" % (
                  where, parse, "each arm's batching %s becomes" % tree.where(batching) if len(arms) > 1
                  else "its batching %s becomes" % tree.where(batching)))
    if any(m.shuffle_buffer for m in models):
        detail += "; the last records the shuffle_batch's queue kept back (min_after_dequeue) now come out"
    return Tail(removed=[middle[i] for i in work] + [batching], lines=lines,
                batchers=[call for _, _, _, call in arms], detail=detail)


def _stages(ds: str, model, tf: str, target: Target) -> List[str]:
    out = []
    if model.shuffle_buffer:
        out.append("%s = %s.shuffle(%s%s)" % (ds, ds, model.shuffle_buffer,
                                               ", seed=%s" % model.seed if model.seed else ""))
    out.append("%s = %s.%s" % (ds, ds, synth._batch(ds, dataclasses.replace(model, num_threads=None), tf, target)))
    return out


def _batch_calls(stmt: cst.CSTNode, resolve) -> List[cst.Call]:
    return [c for c in cstutil.calls_of(stmt) if resolve(c.func) in _BATCHERS]


def _names(node) -> Optional[List[str]]:
    """The plain names of `x` or `(x, y)` / `[x, y]`; None for anything else."""
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)) and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in node.elements):
        return [e.value.value for e in node.elements]
    return None


def _tests(stmt) -> List[Optional[cst.BaseExpression]]:
    """The test of each arm of an if/elif/else (None for the `else`); [None] for a plain statement."""
    if not isinstance(stmt, cst.If):
        return [None]
    _, tests, no_else = cstutil.if_chain(stmt)
    return list(tests) + ([] if no_else else [None])


def _arms(tree, stmt, resolve):
    """[(statement, target, tensors list, batcher call)] of the batching: one statement, or an
    if/elif/else with one in each arm."""
    if isinstance(stmt, cst.If):
        blocks, tests, no_else = cstutil.if_chain(stmt)
        if no_else:
            raise Declined("the batching %s is in an `if` without `else`: on the other path nothing batched the "
                           "records" % tree.where(stmt))
        for test in tests:
            if cstutil.calls_of(test) or cstutil.nodes_of(test, (cst.Lambda, cst.Yield, cst.NamedExpr)):
                raise Declined("the test of %s calls something, and the dataset would evaluate it again"
                               % tree.where(stmt))
        statements = []
        for block in blocks:
            if not isinstance(block, cst.IndentedBlock) or len(block.body) != 1:
                raise Declined("an arm of %s holds more than its batching" % tree.where(stmt))
            statements.append(block.body[0])
    else:
        statements = [stmt]
    out = []
    for each in statements:
        assign = cstutil.single_assign(each)
        calls = _batch_calls(each, resolve)
        if assign is None or len(calls) != 1 or assign[1] is not calls[0] or not calls[0].args \
                or calls[0].args[0].keyword is not None:
            raise Declined("%s is not `names = tf.train.batch([tensors], ...)` (or shuffle_batch)" % tree.where(each))
        out.append((each, assign[0], calls[0].args[0].value, calls[0]))
    return out
