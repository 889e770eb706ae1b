"""Queue-runner plumbing: `start_queue_runners`, the `Coordinator` that only served it, and slim's
`with slim.queues.QueueRunners(sess):` block."""
from collections import Counter, defaultdict
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from qmigrate import cstutil
from qmigrate.names import ImportMap, dotted
from qmigrate.diagnostics import Safety
from qmigrate.rules.base import Example, Rule, example_source
from qmigrate.rules.unsupported import short_name


# A training loop with the usual plumbing, and its migration.
_RUNNERS_BEFORE = example_source("""
    import tensorflow as tf

    def main(files):
        queue = tf.train.string_input_producer(files, num_epochs=1)
        reader = tf.TFRecordReader()
        _, record = reader.read(queue)
        records = tf.train.batch([record], batch_size=2)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            try:
                while not coord.should_stop():
                    sess.run(records)
            except tf.errors.OutOfRangeError:
                pass
            finally:
                coord.request_stop()
            coord.join(threads)
    """)

_RUNNERS_AFTER = example_source("""
    import tensorflow as tf

    def main(files):
        dataset = tf.data.Dataset.from_tensor_slices(files)
        dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
        dataset = dataset.repeat(1)
        dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(2))
        dataset = dataset.prefetch(1)
        records = dataset.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            try:
                while True:
                    sess.run(records)
            except tf.errors.OutOfRangeError:
                pass
    """)


# An evaluation loop that hands its error to the coordinator, whose join() raises it again.
def _evaluation(legacy: str, threads: str) -> str:
    """The pipeline of `legacy` (_RUNNERS_BEFORE or _RUNNERS_AFTER), evaluated for some steps by
    a loop that hands its error to the coordinator (`threads`: how its thread list is made)."""
    head = legacy.split("    with tf.Session()")[0].replace("def main(files):", "def evaluate(files, steps):")
    return head + "    " + example_source("""
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = %s
            try:
                for _ in range(steps):
                    sess.run(records)
            except Exception as e:
                coord.request_stop(e)
            coord.request_stop()
            coord.join(threads)
    """ % threads).replace("\n", "\n    ").rstrip(" ")


_REPORTING_BEFORE = _evaluation(_RUNNERS_BEFORE, "tf.train.start_queue_runners(sess=sess, coord=coord)")
_REPORTING_AFTER = _evaluation(_RUNNERS_AFTER, "[]")


class StartQueueRunners(Rule):
    """`start_queue_runners` (and the `join` of its threads) is removed once no queue is left.

    ## Why
    tf.data pipelines need no runner threads; starting runners for no queue does nothing.

    ## Fix safety
    Safe, and only applied when no queue construct remains in the file and the migrated files
    rewrote at least one pipeline. Otherwise the call is kept and reported.

    A coordinator handed an exception (`coord.request_stop(e)`) stays, to raise it again in its
    `join()`: the thread list it joins becomes `threads = []`. A thread list kept on an object
    (`self.threads = tf.train.start_queue_runners(...)`), which other methods may join, becomes
    `self.threads = []`.

    A Supervisor's own `sv.start_queue_runners(sess)` starts the same runners (the graph's
    QUEUE_RUNNERS collection, with the supervisor's coordinator): it goes the same way, with
    `sv.coord.join(threads)` of its thread list. So does `sv.start_queue_runners(sess, runners)` of
    `runners = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)` (TensorFlow's distributed Inception
    trainer), and that binding with it when nothing else reads the list.

    "No queue left" is asked of the program: the file and the modules it imports, or that import
    it, with what they import. Queue code the run leaves in a top-level function that no file of
    the run names (its module neither, and no decorator on it) builds no queue in any program of
    the run, and keeps no call (qmigrate/uncalled_queues.py). A file that imports a saved graph
    (`tf.train.import_meta_graph`, a SavedModel's loader), or calls the function of another
    module that does, keeps its calls: the graph's saved QUEUE_RUNNERS collection comes with it,
    and its queues wait for these threads (measured under TF 1.8; qmigrate/saved_graphs.py).

    ## Limitations
    A thread list used for more than `coord.join(threads)` keeps the call. A queue function called
    through a name built at run time (`getattr(module, "make_" + kind)`) is not seen. A Supervisor is
    followed under a name or attribute (`sv`, `self.sv`) bound to `tf.train.Supervisor(...)` and
    nothing else in the module; one handed runners of its own (`queue_runners=`, a
    SyncReplicasOptimizer's chief runner) is not.
    """

    code = "QM501"
    names = ("tensorflow.train.start_queue_runners",)
    signature = ("sess", "coord", "daemon", "start", "collection")
    message = "start_queue_runners starts queue-runner threads"
    advice = "remove it once every input pipeline of this program uses tf.data"
    examples = (
        Example(before=_RUNNERS_BEFORE, after=_RUNNERS_AFTER),
        # The same program, start_queue_runners imported from its defining module.
        Example(
            before=_RUNNERS_BEFORE.replace(
                "import tensorflow as tf\n",
                "import tensorflow as tf\n"
                "from tensorflow.python.training.queue_runner_impl import start_queue_runners\n",
            ).replace("tf.train.start_queue_runners(", "start_queue_runners("),
            after=_RUNNERS_AFTER,
        ),
        # An error handed to request_stop() is raised again by join(): the coordinator stays.
        Example(before=_REPORTING_BEFORE, after=_REPORTING_AFTER),
    )


class Coordinator(Rule):
    """A `Coordinator` that only served queue runners is removed with them.

    ## Why
    Without runner threads there is nothing to coordinate: `coord.should_stop()` stays False
    until the program itself asks to stop.

    ## Fix safety
    Safe. Removed only when every use is plumbing: passed to `start_queue_runners`,
    `coord.request_stop()` and `coord.join()` statements, and `while not coord.should_stop():`
    (which becomes `while True:`; the loop still ends on `OutOfRangeError`). A coordinator used
    any other way is kept: it still works without queues. So is one handed an exception
    (`except Exception as e: coord.request_stop(e)`), which its `join()` raises again: the
    runners' thread list it joins becomes `threads = []`. A coordinator kept in a file with no
    queue call left is reported as a note (no change needed), so `--check` passes on the result.

    ## Limitations
    Threads of the program's own that use the coordinator keep it, as they should. In a file with
    no queue code, a coordinator that only stops and joins the program's own `threading.Thread`s
    (its methods, and values handed to the threads) is not queue code: it is not reported; nor is
    one that only its own methods use (what a migration leaves for the error it carries), in a file
    with no other queue API.
    """

    code = "QM502"
    names = ("tensorflow.train.Coordinator",)
    signature = ("clean_stop_exception_types",)
    message = "Coordinator coordinates queue-runner threads"
    advice = "remove it with start_queue_runners once no queue is left"
    # The same program, the Coordinator imported from its defining module.
    examples = (
        Example(
            before=_RUNNERS_BEFORE.replace(
                "import tensorflow as tf\n",
                "import tensorflow as tf\nfrom tensorflow.python.training.coordinator import Coordinator\n",
            ).replace("tf.train.Coordinator()", "Coordinator()"),
            after=_RUNNERS_AFTER,
        ),
    )


class QueueRunnersBlock(Rule):
    """slim's `with slim.queues.QueueRunners(sess):` block goes once no queue is left: its body stays.

    ## Why
    The context manager starts the queue runners of the graph on entry and stops and joins them
    on exit. With the input read from tf.data there are no runners to start: the block is only
    its body.

    ## Fix safety
    Safe, and only applied when no queue construct remains in the migrated files and they
    rewrote at least one pipeline (as for `start_queue_runners`). The body's statements move one
    indentation level out, comments kept; other items of the same `with` stay.

    ## Limitations
    A block that binds the manager (`as runners`) keeps it.
    """

    code = "QM504"
    names = ("tensorflow.contrib.slim.queues.QueueRunners",)
    signature = ("session",)
    message = "slim.queues.QueueRunners starts and stops queue runners around a block"
    advice = "drop the `with` (keep its body) once every input pipeline of this program uses tf.data"
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            slim = tf.contrib.slim

            def evaluate(files, steps):
                queue = tf.train.string_input_producer(files, num_epochs=1)
                reader = tf.TFRecordReader()
                _, record = reader.read(queue)
                records = tf.train.batch([record], batch_size=2)
                with tf.Session() as sess:
                    sess.run(tf.local_variables_initializer())
                    # the runners fill the batch queue while the loop reads it
                    with slim.queues.QueueRunners(sess):
                        for _ in range(steps):
                            sess.run(records)
            """),
            after=example_source("""
            import tensorflow as tf

            def evaluate(files, steps):
                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.repeat(1)
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(2))
                dataset = dataset.prefetch(1)
                records = dataset.make_one_shot_iterator().get_next()
                with tf.Session() as sess:
                    sess.run(tf.local_variables_initializer())
                    # the runners fill the batch queue while the loop reads it
                    for _ in range(steps):
                        sess.run(records)
            """),
        ),
    )


class StillWorks(str):
    """The reason remove_plumbing gives for a Coordinator it keeps that needs no runner: the
    caller tells it from the reasons of plumbing a queue may still need by its type."""


def remove_plumbing(module: cst.Module, imports: ImportMap, loads: Optional[Counter] = None):
    """Remove queue-runner plumbing from a module in which no queue is left (`loads`: its name
    loads, if counted: used when no function of it binds a name of its plumbing).

    Names are those of their scope (_PlumbingFinder's keys: a `coord` of one function is not the
    `coord` of another), and counted there (a nested function's use of an enclosing `coord`
    counts as the enclosing function's).

    Returns (new module, {(path, code): how many calls were removed}, {(path, code): why the rest
    stays}), `path` the names of the classes and functions around the call, outermost first (the
    module's own: `()`).
    """
    finder = _PlumbingFinder(imports, supervisors(module, imports), collection_lists(module, imports))
    cstutil.walk(module, finder, statements_only=True)
    loads_of = _ScopeLoads(module, finder, loads)
    reasons = _Reasons(finder)

    drop_statements: Set[int] = set(id(stmt) for stmt in finder.runner_statements)
    # `coord.request_stop(e)` hands the coordinator an exception that its join() raises again
    # (unless it is an OutOfRangeError): the coordinator and its join stay, so the error still ends
    # the program where it did; the runners' thread list it joins is empty now (`threads = []`).
    no_threads: Dict[int, str] = {}
    filled: Set["_Key"] = set()  # coordinators joining a thread list that other code fills too
    # `self.threads = tf.train.start_queue_runners(...)`: other methods (other modules) may join the
    # attribute, which no name count here follows; it stays bound, to no thread (`self.threads = []`).
    for stmt in finder.runner_statements:
        assign = cstutil.single_assign(stmt)
        if assign is not None and not isinstance(assign[0], cst.Name):
            no_threads[id(stmt)] = cst.Module([]).code_for_node(assign[0])
    for coord in sorted(finder.reporting & set(finder.coordinators), key=_key_order):
        reasons.set(coord, Coordinator.code, StillWorks("`%s.request_stop(...)` is handed an exception, which its "
                                                        "join() raises again; it works without queue runners"
                                                        % coord[1]))
        no_threads.update(_thread_list_names(finder.runners_by_coord[coord]))
    for threads, uses in finder.thread_joins.items():
        if finder.join_owners[threads] & finder.reporting:
            # joined by a coordinator handed an exception (a parameter, `sv.coord`): as above
            no_threads.update(_thread_list_names(finder.runner_statements_by_threads[threads]))
        if any(id(stmt) in no_threads for stmt in finder.runner_statements_by_threads[threads]):
            continue  # the coordinator's join() of no threads stays
        if loads_of(threads) == len(uses):
            drop_statements.update(uses)
            continue
        runners = finder.runner_statements_by_threads[threads]
        named = _thread_list_names(runners)
        if runners and all(id(stmt) in named for stmt in runners):
            # Other code uses the list too (appends threads of its own, which the joins wait for):
            # it stays bound, to no runner's thread (`threads = []`), as start_queue_runners
            # returns it with no runner left; its joins and their coordinators stay.
            no_threads.update(named)
            for coord in finder.join_owners[threads]:
                filled.add(coord)
                reasons.set(coord, Coordinator.code, StillWorks(
                    "it joins `%s`, which other code uses too (the program's own threads may be in it); it works "
                    "without queue runners" % threads[1]))
            continue
        reasons.set(threads, StartQueueRunners.code,
                    "its thread list `%s` is used for more than join()" % threads[1])
        drop_statements -= set(id(s) for s in runners)

    # `assert threads`: with no runner to start, the list is empty (start_queue_runners returns
    # [] too); the assert checked that the queues had runners, and goes with the start.
    for threads, asserts in finder.thread_asserts.items():
        if all(id(stmt) in drop_statements for stmt in finder.runner_statements_by_threads[threads]):
            drop_statements.update(asserts)

    loops: Set[int] = set()
    for coord, stmt in finder.coordinators.items():
        plumbing = finder.coord_uses[coord]
        passed = finder.coord_passed[coord]
        if coord in finder.reporting or coord in filled:
            continue
        if any(id(s) not in drop_statements for s in finder.runners_by_coord[coord]):
            reasons.set(coord, Coordinator.code, "it is kept with the start_queue_runners call that uses it")
        elif loads_of(coord) == len(plumbing["statements"]) + len(plumbing["loops"]) + passed:
            drop_statements.add(id(stmt))
            drop_statements.update(plumbing["statements"])
            loops.update(plumbing["loops"])
        else:
            reasons.set(coord, Coordinator.code, StillWorks("`%s` is used beyond the queue runners (it still works "
                                                            "without them)" % coord[1]))
    for path, held in finder.kept_coordinators:
        reasons.at(path, Coordinator.code, StillWorks("it is kept in `%s`, which other methods or modules may use "
                                                      "(it still works without queue runners)" % held))
    for stmt in finder.runner_blocks + finder.hand_loops:
        drop_statements.add(id(stmt))
    # The collection's list a dropped `sv.start_queue_runners(sess, runners)` alone read goes with it.
    for stmt, runners in finder.list_starts:
        if id(stmt) in drop_statements and runners in finder.list_bindings and loads_of(runners) == 1:
            drop_statements.add(id(finder.list_bindings[runners]))
    remover = _PlumbingRemover(drop_statements, loops, finder.runner_items, no_threads)
    remover.reach = cstutil.statements_holding(module, drop_statements | loops)
    new_module = module.visit(remover)
    removed = Counter((finder.paths[id(stmt)], rule.code) for rule, stmt in finder.calls
                      if id(stmt) in drop_statements)
    return new_module, dict(removed), reasons.found


def _thread_list_names(statements) -> Dict[int, str]:
    """id of each runner statement that binds one plain name (`threads = start_queue_runners(...)`)
    -> that name."""
    named = {}
    for stmt in statements:
        assign = cstutil.single_assign(stmt)
        if assign is not None and isinstance(assign[0], cst.Name):
            named[id(stmt)] = assign[0].value
    return named


class _Reasons:
    """Why plumbing stays, by the path of the scope it stands in and its code; the first said holds."""

    def __init__(self, finder: "_PlumbingFinder"):
        self.finder = finder
        self.found: Dict[Tuple[Tuple[str, ...], str], str] = {}

    def set(self, key: "_Key", code: str, why: str) -> None:
        self.at(self.finder.scope_paths.get(key[0], ()), code, why)

    def at(self, path: Tuple[str, ...], code: str, why: str) -> None:
        self.found.setdefault((path, code), why)


_Key = Tuple[Optional[int], str]  # (id of the function whose name it is, or None for the module's; the name)


def _key_order(key: _Key) -> Tuple[int, str]:
    return (key[0] or 0, key[1])


class _ScopeLoads:
    """How often the name of a key is read in its scope (cstutil.scoped_uses of its function, or
    of the module for module-level names)."""

    def __init__(self, module: cst.Module, finder: "_PlumbingFinder", module_loads: Optional[Counter]):
        self.module, self.finder = module, finder
        # The module's loads count a function's local of the same name too: usable only without functions.
        self.module_loads = module_loads if not finder.functions and not finder.classes else None
        self.counts: Dict[Optional[int], Counter] = {}

    def __call__(self, key: _Key) -> int:
        scope, name = key
        if scope is None and self.module_loads is not None:
            return self.module_loads[name]
        if scope not in self.counts:
            node = self.module if scope is None else self.finder.functions[scope]
            self.counts[scope] = Counter(cstutil.scoped_uses(node).loads)
        return self.counts[scope][name]


SUPERVISOR = "tensorflow.train.Supervisor"


def supervisors(module: cst.Module, imports: ImportMap) -> Set[str]:
    """The names and attributes (`sv`, `self.sv`) the module binds to a `tf.train.Supervisor(...)`
    and to nothing else, anywhere in it (a name bound to two things is none of them)."""
    def made(value) -> bool:
        return isinstance(value, cst.Call) and imports.resolve(value.func) == SUPERVISOR

    return _bound_only_to(module, made, dotted)


def _bound_only_to(module: cst.Module, made, spelled) -> Set[str]:
    """The targets (as `spelled` writes them; None: not one) that every assignment of the module
    binding them, alone, binds to a value `made` accepts."""
    bound: Dict[str, bool] = {}
    for node in cstutil.nodes_of(module, cst.Assign):
        for target in node.targets:
            name = spelled(target.target)
            if name is not None:
                bound[name] = bound.get(name, True) and made(node.value) and len(node.targets) == 1
    return {name for name, only in bound.items() if only}


def collection_lists(module: cst.Module, imports: ImportMap) -> Set[str]:
    """The names the module binds to `tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)` and to nothing
    else, anywhere in it: the graph's queue runners, as a list."""
    return _bound_only_to(module, lambda value: is_collection_read(value, imports),
                          lambda target: target.value if isinstance(target, cst.Name) else None)


def is_collection_read(value: cst.BaseExpression, imports: ImportMap) -> bool:
    """`tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)`."""
    return (isinstance(value, cst.Call) and len(value.args) == 1 and not value.args[0].star
            and value.args[0].keyword is None and (imports.resolve(value.func) or "").endswith(".get_collection")
            and (imports.resolve(value.args[0].value) or "").endswith("GraphKeys.QUEUE_RUNNERS"))


def started_lists(module: cst.Module, imports: ImportMap) -> Set[int]:
    """id of the QUEUE_RUNNERS key in each `runners = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)`
    whose list a Supervisor starts (`sv.start_queue_runners(sess, runners)`): plumbing, not runners
    of the module's own making."""
    held = supervisors(module, imports)
    lists = collection_lists(module, imports) if held else set()
    if not lists:
        return set()
    started = {supervisor_starts(call, held, lists) for call in cstutil.calls_of(module)}
    return {id(node.value.args[0].value) for node in cstutil.nodes_of(module, cst.Assign)
            if isinstance(node.targets[0].target, cst.Name) and node.targets[0].target.value in started
            and is_collection_read(node.value, imports)}


def supervisor_starts(call: cst.Call, held: Set[str], lists: Set[str] = frozenset()) -> Optional[str]:
    """`sv.start_queue_runners(sess)` of a Supervisor `sv` of `held`: the runners of the graph's
    QUEUE_RUNNERS collection, as tf.train.start_queue_runners(sess) starts them (with the
    supervisor's coordinator); so is `sv.start_queue_runners(sess, runners)` of a list of `lists`
    (collection_lists: that collection read by hand). "" for the first, the list's name for the
    second, None for anything else (a list of runners of its own)."""
    if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "start_queue_runners"
            and dotted(call.func.value) in held and 1 <= len(call.args) <= 2 and not any(a.star for a in call.args)
            and (call.args[0].keyword is None or call.args[0].keyword.value == "sess")):
        return None
    if len(call.args) == 1:
        return ""
    runners = call.args[1]
    if (runners.keyword is None or runners.keyword.value == "queue_runners") and isinstance(runners.value, cst.Name) \
            and runners.value.value in lists:
        return runners.value.value
    return None


def _call_of(stmt: cst.BaseStatement) -> Optional[cst.Call]:
    value = cstutil.statement_value(stmt)
    return value if isinstance(value, cst.Call) else None


def _coordinator_calls(stmt: cst.SimpleStatementLine) -> List[Tuple[str, str, cst.Call]]:
    """(owner, method, call) for each `x.request_stop(...)` / `x.join(...)` of a line that holds
    nothing else (`coord.request_stop(); coord.join(threads)` too: the line goes as a whole).
    The owner may be dotted (`sv.coord.join(threads)`, a Supervisor's coordinator)."""
    found = []
    for small in stmt.body:
        call = small.value if isinstance(small, cst.Expr) else None
        owner = dotted(call.func.value) if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) \
            else None
        if owner is None or call.func.attr.value not in ("request_stop", "join"):
            return []
        found.append((owner, call.func.attr.value, call))
    return found


def _should_stop_loop(node: cst.While) -> Optional[str]:
    """`c` for `while not c.should_stop():`."""
    test = node.test
    if (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
            and isinstance(test.expression, cst.Call) and not test.expression.args
            and isinstance(test.expression.func, cst.Attribute)
            and test.expression.func.attr.value == "should_stop"
            and isinstance(test.expression.func.value, cst.Name)):
        return test.expression.func.value.value
    return None


class RunnersStartedByHand(Rule):
    """A loop starting every queue runner of the QUEUE_RUNNERS collection by hand goes once no queue is left.

    ## Why
    `for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS):` with
    `threads.extend(qr.create_threads(sess, coord=coord, daemon=True, start=True))` is
    `tf.train.start_queue_runners` written out. With the input read from tf.data the collection
    holds no runner: the loop starts nothing.

    ## Fix safety
    Safe, and only applied when no queue construct remains in the migrated files and they
    rewrote at least one pipeline (as for `start_queue_runners`). The thread list it extended
    stays, empty, for whatever joins it; when nothing else reads it, it goes too.

    ## Limitations
    The loop's body must hold only calls of the runner's `create_threads` (a statement of its
    own, or handed to a list's `extend`/`append`), and its iterable be
    `get_collection(GraphKeys.QUEUE_RUNNERS)` itself.
    """

    code = "QM505"
    names = ()
    message = "a loop starts the threads of every queue runner of the QUEUE_RUNNERS collection by hand"
    advice = "remove the loop once every input pipeline of this program uses tf.data"
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf

            def train(files, steps):
                queue = tf.train.string_input_producer(files, num_epochs=1)
                reader = tf.TFRecordReader()
                _, record = reader.read(queue)
                records = tf.train.batch([record], batch_size=2)
                with tf.Session() as sess:
                    sess.run(tf.local_variables_initializer())
                    threads = []
                    for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS):
                        threads.extend(qr.create_threads(sess, daemon=True, start=True))
                    for _ in range(steps):
                        sess.run(records)
            """),
            after=example_source("""
            import tensorflow as tf

            def train(files, steps):
                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.repeat(1)
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(2))
                dataset = dataset.prefetch(1)
                records = dataset.make_one_shot_iterator().get_next()
                with tf.Session() as sess:
                    sess.run(tf.local_variables_initializer())
                    for _ in range(steps):
                        sess.run(records)
            """),
        ),
    )


def hand_started_loop(loop: cst.CSTNode, imports: ImportMap) -> bool:
    """Whether `loop` is `for qr in get_collection(GraphKeys.QUEUE_RUNNERS):` whose body only
    starts `qr`'s threads (`qr.create_threads(...)`, alone or handed to `x.extend`/`x.append`)."""
    if not (isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) and loop.orelse is None
            and isinstance(loop.iter, cst.Call) and len(loop.iter.args) == 1
            and (imports.resolve(loop.iter.func) or "").endswith(".get_collection")
            and (imports.resolve(loop.iter.args[0].value) or "").endswith("GraphKeys.QUEUE_RUNNERS")
            and isinstance(loop.body, cst.IndentedBlock)):
        return False
    runner = loop.target.value

    def starts(call) -> bool:
        return (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "create_threads" and isinstance(call.func.value, cst.Name)
                and call.func.value.value == runner)

    for stmt in loop.body.body:
        small = cstutil.single_small(stmt)
        value = small.value if isinstance(small, cst.Expr) else None
        if starts(value):
            continue
        if (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                and value.func.attr.value in ("extend", "append") and isinstance(value.func.value, cst.Name)
                and len(value.args) == 1 and starts(value.args[0].value)):
            continue
        return False
    return True


class SessionStartsRunners(Rule):
    """A `Supervisor` or `MonitoredSession` that starts the queue runners of the graph by itself.

    ## Why
    These sessions call `start_queue_runners` implicitly, so a file can hold queue code with no
    visible runner start. Shown only while queue code is left in the file, so that nobody
    wonders who feeds it.

    ## Fix safety
    A note: nothing to change. The session keeps working after migration (tf.data needs no
    runners), and keeps starting the runners of the queues still left.

    ## Limitations
    None: the session itself is not queue code.
    """

    code = "QM503"
    names = ("tensorflow.train.Supervisor", "tensorflow.train.MonitoredTrainingSession",
             "tensorflow.train.MonitoredSession", "tensorflow.train.SingularMonitoredSession")
    safety = Safety.MANUAL
    note = True
    message = "this session starts the queue runners of the graph implicitly"
    advice = ("nothing to change here: it starts the runners of the queue code left in this file, "
              "and needs none once that code reads from tf.data")
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf
            from tensorflow.python.training import monitored_session

            def train(files, train_op):
                queue = tf.train.string_input_producer(files)
                reader = tf.TextLineReader()
                key, record = reader.read(queue)
                keys, records = tf.train.batch([key, record], batch_size=8)
                with monitored_session.MonitoredTrainingSession() as sess:
                    while not sess.should_stop():
                        sess.run(train_op)
            """),
        ),
    )

    @classmethod
    def message_for(cls, name) -> str:
        return "%s starts the queue runners of the graph implicitly" % short_name(name)


class _PlumbingFinder(cst.CSTVisitor):
    """The plumbing statements of a module, their names keyed by scope (`_Key`): a name read in a
    function is the function's when it binds it, else the nearest enclosing function's that does,
    else the module's."""

    def __init__(self, imports: ImportMap, held_supervisors: Set[str] = frozenset(), lists: Set[str] = frozenset()):
        self.imports = imports
        self.supervisors = held_supervisors  # names bound to a tf.train.Supervisor (supervisors())
        self.lists = lists  # names bound to the QUEUE_RUNNERS collection's list (collection_lists())
        self.list_bindings: Dict[_Key, cst.BaseStatement] = {}  # their bindings
        self.list_starts: List[Tuple[cst.BaseStatement, _Key]] = []  # sv.start_queue_runners(sess, the list)
        self.calls: List[Tuple[type, cst.BaseStatement]] = []
        self.runner_statements: List[cst.BaseStatement] = []
        self.runner_statements_by_threads: Dict[_Key, List[cst.BaseStatement]] = defaultdict(list)
        self.thread_joins: Dict[_Key, List[int]] = {}
        # (path, target) of those kept to something else than a plain name (`self.coord`)
        self.kept_coordinators: List[Tuple[Tuple[str, ...], str]] = []
        self.coordinators: Dict[_Key, cst.BaseStatement] = {}
        self.coord_uses = defaultdict(lambda: {"statements": [], "loops": []})
        self.coord_passed: Counter = Counter()
        self.runners_by_coord: Dict[_Key, List[cst.BaseStatement]] = defaultdict(list)
        self.reporting: Set[_Key] = set()  # coordinators whose request_stop() is handed an exception
        self._joins: List[Tuple[_Key, cst.BaseStatement, _Key]] = []  # (threads, statement, coordinator)
        self._asserts: List[Tuple[_Key, cst.BaseStatement]] = []  # (threads, `assert threads`)
        # the asserts that the runners' thread list is not empty, by list: they go with its start
        self.thread_asserts: Dict[_Key, List[int]] = defaultdict(list)
        self.join_owners: Dict[_Key, Set[_Key]] = defaultdict(set)  # threads -> the coordinators joining them
        self.runner_blocks: List[cst.With] = []  # `with slim.queues.QueueRunners(sess):`, nothing bound
        self.runner_items: Set[int] = set()  # their QueueRunners items
        self.hand_loops: List[cst.For] = []  # loops starting the collection's runners (RunnersStartedByHand)
        self.functions: Dict[int, cst.FunctionDef] = {}  # by id, those walked
        self.classes = 0  # how many classes were walked
        # The enclosing functions, each with its own names once asked for (most functions hold no plumbing).
        self._scopes: List[list] = []
        self._path: List[str] = []  # the names of the classes and functions around, outermost first
        self.paths: Dict[int, Tuple[str, ...]] = {}  # id(statement of self.calls) -> its path
        self.scope_paths: Dict[Optional[int], Tuple[str, ...]] = {None: ()}  # id(function) -> its path, inclusive

    def _key(self, name: str) -> _Key:
        for scope in reversed(self._scopes):
            if scope[1] is None:
                scope[1] = cstutil.own_bindings(scope[0])
            if name in scope[1]:
                return (id(scope[0]), name)
        return (None, name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions[id(node)] = node
        self._scopes.append([node, None])
        self._path.append(node.name.value)
        self.scope_paths[id(node)] = tuple(self._path)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._scopes.pop()
        self._path.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes += 1
        self._path.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._path.pop()

    def _call(self, rule: type, stmt: cst.CSTNode) -> None:
        self.calls.append((rule, stmt))
        self.paths[id(stmt)] = tuple(self._path)

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            if isinstance(item.item, cst.Call) and item.asname is None \
                    and self.imports.resolve(item.item.func) == QueueRunnersBlock.names[0]:
                self._call(QueueRunnersBlock, node)
                self.runner_blocks.append(node)
                self.runner_items.add(id(item))
                return

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        call = _call_of(node)
        rule, started = None, None
        if call is not None:
            name = self.imports.resolve(call.func)
            if name is None and self.supervisors:
                started = supervisor_starts(call, self.supervisors, self.lists)
                if started is not None:
                    name = StartQueueRunners.names[0]
            rule = {StartQueueRunners.names[0]: StartQueueRunners, Coordinator.names[0]: Coordinator}.get(name)
        assign = cstutil.single_assign(node)
        target = assign[0].value if assign and isinstance(assign[0], cst.Name) else None
        if target in self.lists and is_collection_read(assign[1], self.imports):
            self.list_bindings[self._key(target)] = node
        if rule is StartQueueRunners:
            self._call(rule, node)
            self.runner_statements.append(node)
            if started:
                self.list_starts.append((node, self._key(started)))
            if target:
                self.runner_statements_by_threads[self._key(target)].append(node)
                self.thread_joins.setdefault(self._key(target), [])
            # (a Supervisor's start takes no coordinator: its second argument is the runners' list)
            coord = cstutil.argument(call, "coord", 1) if started is None else None
            if isinstance(coord, cst.Name):
                self.coord_passed[self._key(coord.value)] += 1
                self.runners_by_coord[self._key(coord.value)].append(node)
        elif rule is Coordinator and target:
            self._call(rule, node)
            self.coordinators[self._key(target)] = node
        elif rule is Coordinator and assign is not None:
            self.kept_coordinators.append((tuple(self._path), cst.Module([]).code_for_node(assign[0])))
        tested = _tested_list(node)
        if tested is not None:  # `assert threads, 'started queue runners'`
            self._asserts.append((self._key(tested), node))
        for owner, method, stop in _coordinator_calls(node):
            owner = self._key(owner)
            self.coord_uses[owner]["statements"].append(id(node))
            if method == "request_stop" and stop.args:
                self.reporting.add(owner)
            if method == "join":
                threads = cstutil.argument(stop, "threads", 0)
                if isinstance(threads, cst.Name):
                    self._joins.append((self._key(threads.value), node, owner))

    def visit_For(self, node: cst.For) -> None:
        if hand_started_loop(node, self.imports):
            self._call(RunnersStartedByHand, node)
            self.hand_loops.append(node)

    def visit_While(self, node: cst.While) -> None:
        owner = _should_stop_loop(node)
        if owner:
            self.coord_uses[self._key(owner)]["loops"].append(id(node))

    def leave_Module(self, original_node: cst.Module) -> None:
        for threads, stmt, owner in self._joins:
            if threads in self.thread_joins:
                self.thread_joins[threads].append(id(stmt))
                self.join_owners[threads].add(owner)
        for threads, stmt in self._asserts:
            if threads in self.thread_joins:
                self.thread_joins[threads].append(id(stmt))
                self.thread_asserts[threads].append(id(stmt))


def _tested_list(stmt: cst.SimpleStatementLine) -> Optional[str]:
    """`x` of a statement that is only `assert x`, `assert len(x)` or `assert len(x) > 0` (with or
    without a message); None otherwise."""
    if len(stmt.body) != 1 or not isinstance(stmt.body[0], cst.Assert):
        return None
    test = stmt.body[0].test
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(
            test.comparisons[0].operator, cst.GreaterThan) and isinstance(test.comparisons[0].comparator, cst.Integer) \
            and test.comparisons[0].comparator.value == "0":
        test = test.left
    if isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "len" \
            and len(test.args) == 1:
        test = test.args[0].value
    return test.value if isinstance(test, cst.Name) else None


class _PlumbingRemover(cstutil.StatementTransformer):
    def __init__(self, statements: Set[int], loops: Set[int], runner_items: Set[int],
                 no_threads: Optional[Dict[int, str]] = None):
        self.statements = statements
        self.loops = loops
        self.items = runner_items  # the QueueRunners items of the `with` statements in `statements`
        self.no_threads = no_threads or {}  # runner statements whose thread list a kept coordinator joins
        self.removed: Dict[int, bool] = {}  # id(removed statement) -> whether a blank line opened it

    def _remove(self, original_node) -> cst.RemovalSentinel:
        self.removed[id(original_node)] = cstutil.opened_by_blank_line(original_node)
        return cst.RemovalSentinel.REMOVE

    def leave_IndentedBlock(self, original_node, updated_node):
        body = cstutil.kept_apart(original_node.body, updated_node.body, self.removed)
        return updated_node.with_changes(body=body) if body is not updated_node.body else updated_node

    def leave_Module(self, original_node, updated_node):
        body = cstutil.kept_apart(original_node.body, updated_node.body, self.removed)
        return updated_node.with_changes(body=body) if body is not updated_node.body else updated_node

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if id(original_node) in self.statements:
            name = self.no_threads.get(id(original_node))
            if name is not None:  # no runner thread is started: the kept coordinator joins none
                return cst.parse_statement("%s = []\n" % name).with_changes(leading_lines=updated_node.leading_lines)
            return self._remove(original_node)
        return updated_node

    def leave_With(self, original_node, updated_node):
        if id(original_node) not in self.statements:
            return updated_node
        items = [new for old, new in zip(original_node.items, updated_node.items) if id(old) not in self.items]
        if items:  # `with a, QueueRunners(sess):` keeps `with a:`
            items[-1] = items[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated_node.with_changes(items=items)
        body = updated_node.body
        statements = list(body.body) if isinstance(body, cst.IndentedBlock) else \
            [cst.SimpleStatementLine(body=list(body.body))]
        statements[0] = cstutil.with_leading(statements[0], updated_node.leading_lines)
        return cst.FlattenSentinel(statements)

    def leave_For(self, original_node, updated_node):
        if id(original_node) in self.statements:
            return self._remove(original_node)
        return updated_node

    def leave_While(self, original_node, updated_node):
        if id(original_node) in self.loops:
            return updated_node.with_changes(test=cst.Name("True"))
        return updated_node

    def leave_Try(self, original_node, updated_node):
        final = updated_node.finalbody
        if final is not None and not final.body.body:
            if updated_node.handlers or updated_node.orelse:
                return updated_node.with_changes(finalbody=None)
            # `try: ... finally: <only plumbing>` leaves just the body.
            body = list(updated_node.body.body)
            if body:
                body[0] = cstutil.with_leading(body[0], updated_node.leading_lines)
                return cst.FlattenSentinel(body)
        return updated_node
