"""A queue fed from Python whose builder returns its enqueue op to a caller that hands it to a
thread another function starts (the shape of 2016-era trainers' "preloading"):

    def setup_preloading(batch_spec):                       # the builder
        placeholders = {name: tf.placeholder(tf.float32, shape=spec) for name, spec in batch_spec.items()}
        placeholders_list = list(placeholders.values())
        q = tf.FIFOQueue(20, [tf.float32] * len(batch_spec))
        enqueue_op = q.enqueue(placeholders_list)
        batch_list = q.dequeue()
        ...
        return batch, enqueue_op, placeholders

    def load_and_enqueue(sess, enqueue_op, coord, dataset, placeholders):   # the thread's loop
        while not coord.should_stop():
            batch_np = dataset.next_batch()
            food = {pl: batch_np[name] for name, pl in placeholders.items()}
            sess.run(enqueue_op, feed_dict=food)

    def start_preloading(sess, enqueue_op, dataset, placeholders):         # the starter
        coord = tf.train.Coordinator()
        t = threading.Thread(target=load_and_enqueue, args=(sess, enqueue_op, coord, dataset, placeholders))
        t.start()
        return coord, t

    def train():                                            # the caller
        dataset = create_dataset(cfg)
        batch, enqueue_op, placeholders = setup_preloading(batch_spec)
        ...
        coord, thread = start_preloading(sess, enqueue_op, dataset, placeholders)
        ...
        coord.request_stop()
        coord.join([thread])

The thread's loop becomes a generator inside the builder (`while True:`, the run a `yield` of the
fed values in the queue's component order: `tuple(food[c] for c in placeholders_list)`, the
placeholders staying as the feed's keys), the dequeue that generator's dataset, prefetched as
the queue held; the builder takes the Python objects the loop reads (`dataset`), which the caller
passes, and no longer returns the enqueue op; the caller's starter call and its coordinator's
stop and join go, and so do the starter and the thread function. `plan` returns these edits or
raises Declined with what stops them.

Contract (all in one module; the run checks that no other module names the three functions):
- the builder is a top-level function without defaults or starred parameters; the queue is a
  FIFOQueue or RandomShuffleQueue without `names=` or `shared_name=`; its constructor, its one `enqueue` and
  its one `dequeue()` are statements of the builder's body itself; the builder's one `return`,
  its last statement, returns a tuple holding the enqueue op's name, which nothing else reads;
- the builder is called once, `a, e, c = builder(...)`, in the body of a top-level function, the
  caller, where `e` is read once: an argument of a call of the starter, after it, in no loop (a
  `with` or `if` of the caller may hold it);
- the starter is called there only, and holds only a Coordinator, one threading.Thread of the
  thread function with a literal `args=` tuple of its parameters (or the coordinator), the
  thread's start (and daemon flag), and a return of the coordinator and thread; the caller uses
  what it returns only in lines of `coord.request_stop()` and `coord.join(...)` (a `finally:` too);
- the thread function is the thread's target only; its body is one `while not
  coord.should_stop():` (or `while True:`) loop whose last statement runs the enqueue op with a
  feed_dict and whose others never read the session, the op or the coordinator; each other
  object it reads is, in the caller, either a value the builder returned (under the same name in
  the builder) or a name bound before the builder's call (passed to the builder under the thread
  function's name for it, a name the builder does not use).
"""
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Set, Tuple

import libcst as cst

from qmigrate import cstutil, python_fed, python_reads, synth  # python_fed imports this module only when asked
from qmigrate.handbuilt import Declined, bind_arguments
from qmigrate.model import Batching
from qmigrate.rules.batching import shuffle_buffer
from qmigrate.targets import Target

_SIGNATURES = {
    "tensorflow.FIFOQueue": ("capacity", "dtypes", "shapes", "names", "shared_name", "name"),
    "tensorflow.RandomShuffleQueue": ("capacity", "min_after_dequeue", "dtypes", "shapes", "names", "seed",
                                      "shared_name", "name"),
}
_THREAD = ("group", "target", "name", "args", "kwargs", "daemon")


@dataclass
class Edits:
    """What the migration changes, by original node identity (python_fed.Plan's fields), the
    plumbing calls that go with the starter, the functions whose signature changes or that go
    (callers in other modules are looked for), and what differs, said in the finding."""

    removed: Set[int] = field(default_factory=set)
    replaced: Dict[int, List[str]] = field(default_factory=dict)
    nodes: Dict[int, Callable[[cst.CSTNode], cst.CSTNode]] = field(default_factory=dict)
    gone: List[cst.Call] = field(default_factory=list)
    changed: List[str] = field(default_factory=list)
    detail: str = ""


def plan(tree, imports, queue_call: cst.Call, builder: cst.FunctionDef, enqueue: str, enqueue_stmt,
         runner: cst.FunctionDef, run: cst.Call, tf: str, target: Target, keep: Dict[str, str]) -> Edits:
    """The edits that migrate the queue `queue_call` built in `builder`, whose enqueue op (named
    `enqueue`, made by `enqueue_stmt`) `runner` runs with `run`; raises Declined. `tree` is
    python_fed's _Tree of the module; `keep`: functions other code calls (name -> why they stay)."""
    return _Planner(tree, imports, tf, target, keep).plan(queue_call, builder, enqueue, enqueue_stmt, runner, run)


class _Planner:
    def __init__(self, tree, imports, tf, target, keep):
        self.tree, self.imports, self.tf, self.target, self.keep = tree, imports, tf, target, keep
        self.top = {stmt.name.value: stmt for stmt in tree.module.body if isinstance(stmt, cst.FunctionDef)}

    # -- helpers ---------------------------------------------------------------------------------
    def _refs(self, name: str, root: cst.CSTNode) -> List[cst.Name]:
        return python_fed._refs(self.tree, root, name)

    def _top_function(self, name: str, what: str) -> cst.FunctionDef:
        function = self.top.get(name)
        if function is None:
            raise Declined("%s `%s` is not a function defined at the top of this module" % (what, name))
        if name in self.keep:
            raise Declined("%s `%s()` is kept as it is for %s" % (what, name, self.keep[name]))
        return function

    def _body(self, function: cst.FunctionDef) -> List[cst.BaseStatement]:
        if not isinstance(function.body, cst.IndentedBlock):
            raise Declined("`%s()` is written on one line" % function.name.value)
        return list(function.body.body)

    @staticmethod
    def _plain_params(function: cst.FunctionDef) -> List[str]:
        params = python_fed._plain_params(function)
        if params is None:
            raise Declined("`%s()` has starred, keyword-only or positional-only parameters" % function.name.value)
        return params

    def _called_once(self, function: cst.FunctionDef, what: str) -> cst.Call:
        refs = [ref for ref in self._refs(function.name.value, self.tree.module)]
        calls = [self.tree.parent.get(id(ref)) for ref in refs]
        if not refs:
            raise Declined("%s `%s()` is called nowhere in this module: its callers are elsewhere" % (
                what, function.name.value))
        if len(refs) != 1 or not isinstance(calls[0], cst.Call) or calls[0].func is not refs[0]:
            raise Declined("%s `%s()` is named %d times in this module; qmigrate follows one call of it"
                           % (what, function.name.value, len(refs)))
        return calls[0]

    def _statement_of_body(self, node: cst.CSTNode, function: cst.FunctionDef, what: str) -> cst.BaseStatement:
        stmt = node if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) else \
            self.tree.statement(node)
        if self.tree.parent.get(id(stmt)) is not function.body:
            raise Declined("%s %s is not a statement of `%s()`'s body itself" % (what, self.tree.where(node),
                                                                                function.name.value))
        return stmt

    # -- the plan --------------------------------------------------------------------------------
    def plan(self, queue_call, builder, enqueue, enqueue_stmt, runner, run) -> Edits:
        tree = self.tree
        edits = Edits()
        kind = self.imports.resolve(queue_call.func)
        if kind not in _SIGNATURES:
            raise Declined("its queue is a %s (qmigrate follows a FIFOQueue or a RandomShuffleQueue here)"
                           % (kind or "queue").rsplit(".", 1)[-1])
        if tree.parent.get(id(builder)) is not tree.module:
            raise Declined("`%s()`, which builds it, is not defined at the top of the module" % builder.name.value)
        self._top_function(builder.name.value, "its builder")
        builder_params = self._plain_params(builder)
        if any(param.default is not None for param in builder.params.params):
            raise Declined("`%s()` has parameters with defaults, after which none can be added" % builder.name.value)
        args = bind_arguments(queue_call, _SIGNATURES[kind], "its constructor")
        for key in ("names", "shared_name"):
            if key in args and not (isinstance(args[key], cst.Name) and args[key].value == "None"):
                raise Declined("its constructor sets `%s=`" % key)
        body = self._body(builder)
        ctor_stmt = self._statement_of_body(queue_call, builder, "its constructor")
        self._statement_of_body(enqueue_stmt, builder, "its enqueue")
        queue = cstutil.single_assign(ctor_stmt)[0].value if isinstance(cstutil.single_assign(ctor_stmt)[0],
                                                                          cst.Name) else None
        if queue is None:
            raise Declined("its constructor is not assigned to a name")
        enqueue_call = cstutil.single_assign(enqueue_stmt)[1]
        if not (isinstance(enqueue_call, cst.Call) and enqueue_call.func.attr.value == "enqueue"):
            raise Declined("its enqueue op is made by enqueue_many, which qmigrate does not follow here")
        vals = bind_arguments(enqueue_call, ("vals", "name"), "its enqueue").get("vals")
        if not isinstance(vals, (cst.Name, cst.List)):
            raise Declined("its enqueue does not enqueue a name or a literal list of components")
        dequeue_stmt, dequeue_call, dequeue_target = self._dequeue(queue, builder, body)
        returned, return_stmt = self._returned(builder, body, enqueue, dequeue_call)

        # The caller, and the starter it hands the enqueue op to.
        call = self._called_once(builder, "its builder")
        caller = tree.function(call)
        if caller is None or tree.parent.get(id(caller)) is not tree.module:
            raise Declined("`%s()` is not called in a function defined at the top of the module" % builder.name.value)
        call_stmt = self._statement_of_body(call, caller, "the call of its builder")
        assign = cstutil.single_assign(call_stmt)
        if assign is None or assign[1] is not call or not isinstance(assign[0], (cst.Tuple, cst.List)) or len(
                assign[0].elements) != len(returned) or not all(isinstance(e.value, cst.Name)
                                                                 for e in assign[0].elements):
            raise Declined("the call %s does not unpack the %d values `%s()` returns into names"
                           % (tree.where(call), len(returned), builder.name.value))
        unpacked = [e.value.value for e in assign[0].elements]
        position = returned.index(enqueue)
        op = unpacked[position]
        caller_body = self._body(caller)
        uses = [ref for ref in self._refs(op, caller) if ref is not assign[0].elements[position].value]
        if len(uses) != 1:
            raise Declined("`%s()` reads the enqueue op `%s` %d times; qmigrate follows one hand-over to the "
                           "function that starts its thread" % (caller.name.value, op, len(uses)))
        start = tree.parent.get(id(tree.parent.get(id(uses[0]))))
        if not isinstance(start, cst.Call):  # (an element of a thread's `args=` tuple, say)
            start = next((node for node in tree.up(uses[0]) if isinstance(node, cst.Call)), None)
        if isinstance(start, cst.Call) and self.imports.resolve(start.func) == "threading.Thread":
            raise Declined("`%s()` starts the thread itself %s; qmigrate follows a thread that a function of this "
                           "module, given the enqueue op, starts" % (caller.name.value, tree.where(start)))
        if not (isinstance(start, cst.Call) and isinstance(start.func, cst.Name) and any(
                arg.value is uses[0] for arg in start.args)):
            raise Declined("`%s()` hands the enqueue op `%s` to something other than a function of this module %s"
                           % (caller.name.value, op, tree.where(uses[0])))
        starter = self._top_function(start.func.value, "the function that starts its thread,")
        if self._called_once(starter, "the function that starts its thread,") is not start:
            raise Declined("`%s()` is called elsewhere too" % starter.name.value)
        # The start may stand in a `with` or `if` of the caller (a session's block), not in a loop:
        # that would start a producer per iteration.
        start_stmt = tree.statement(start)
        loop = tree.in_loop(start_stmt, caller)
        if loop is not None:
            raise Declined("its thread is started in a loop %s: a producer per iteration" % tree.where(loop))
        if tree.line_of(start_stmt) < tree.line_of(call_stmt):
            raise Declined("its thread is started before the builder is called")

        thread, coordinator, started = self._starter(starter, runner)
        # What the caller does with the starter's results: stops and joins them, nothing else.
        gone_lines = self._stops(caller, caller_body, start_stmt, started)

        # The thread function: its loop, and what each of its parameters is in the caller.
        loop, run_stmt, feed = self._loop(runner, run, thread, coordinator, starter, start)
        sources = self._sources(runner, thread, starter, start, caller, caller_body, call_stmt, unpacked,
                                returned, builder, builder_params, run_stmt, loop)
        added = [(param, given) for param, given in sources if given is not None]

        # The edits.
        taken = set(builder_params) | cstutil.scoped_uses(builder).stores | set(cstutil.scoped_uses(builder).loads)
        if runner.name.value in taken:
            raise Declined("`%s()` already uses the name `%s`, which its generator would take" % (
                builder.name.value, runner.name.value))
        taken |= {param for param, _ in added}
        ds = next(n for n in ("dataset", "fed_dataset", "python_dataset") if n not in taken)
        generator = self._generator(runner, loop, run_stmt, feed, vals)
        count = vals.elements if isinstance(vals, cst.List) else None
        lines = [generator,
                 "\n%s = %s.data.Dataset.from_generator(%s, output_types=%s%s)" % (
                     ds, self.tf, runner.name.value, self._types(args["dtypes"]), self._shapes(args)),
                 "%s = %s.prefetch(%s)" % (ds, ds, tree.source(args["capacity"]))]
        if kind == "tensorflow.RandomShuffleQueue":  # as python_fed buffers one: the queue's mixing
            seed = args.get("seed")
            lines.append("%s = %s.shuffle(%s%s)" % (ds, ds, shuffle_buffer(args, tree.source), "" if seed is None or (
                isinstance(seed, cst.Name) and seed.value == "None") else ", seed=%s" % tree.source(seed)))
        if dequeue_target is None and "dequeued" in taken:
            raise Declined("`%s()` already uses the name `dequeued`, which its returned element would take"
                           % builder.name.value)
        lines += self._element(ds, dequeue_call, dequeue_target, len(count) if count is not None else None)
        edits.removed |= {id(ctor_stmt), id(enqueue_stmt), id(start_stmt), id(starter), id(runner)}
        edits.removed |= {id(stmt) for stmt in gone_lines}
        kept = [name or "dequeued" for index, name in enumerate(returned) if index != position]
        back = ["return %s" % ", ".join(kept) if kept else "return"]
        if dequeue_target is None:  # the dataset is built before the return that held the dequeue
            edits.replaced[id(return_stmt)] = lines + back
        else:
            edits.replaced[id(dequeue_stmt)] = lines
            edits.replaced[id(return_stmt)] = back
        names = [name for index, name in enumerate(unpacked) if index != position]
        passed = "".join(", %s=%s" % (param, given) for param, given in added)
        call_source = tree.source(call)
        new_call = call_source[:-1] + passed + ")" if passed else call_source
        edits.replaced[id(call_stmt)] = ["%s = %s" % (", ".join(names) if names else "_", new_call)]
        if added:
            edits.nodes[id(builder)] = _with_params([param for param, _ in added])
        edits.gone = [coordinator[1]] if coordinator is not None else []
        edits.changed = [builder.name.value, starter.name.value, runner.name.value]
        edits.detail = ("`%s()`'s loop becomes the generator of Dataset.from_generator, made in `%s()`, which now "
                        "takes %s and no longer returns the enqueue op; `%s()` goes%s: the generator runs inside "
                        "TensorFlow's py_func on the input pipeline's thread, holding the GIL, instead of in its own "
                        "threading.Thread; each new iterator runs it from the start; the dataset holds a Python "
                        "function, so its graph cannot be serialised (GraphDef, SavedModel) or run in another process"
                        % (runner.name.value, builder.name.value,
                           ", ".join("`%s`" % param for param, _ in added) or "nothing more", starter.name.value,
                           ", with the lines of `%s()` that stopped and joined its thread" % caller.name.value
                           if gone_lines else ""))
        if kind == "tensorflow.RandomShuffleQueue":
            edits.detail += "; the last elements the RandomShuffleQueue kept back (min_after_dequeue) now come out"
        reads = python_reads.said(python_reads.first_read(runner, self.imports.resolve, {}, tree.line_of))
        if reads:
            edits.detail += "; " + reads
        return edits

    def _dequeue(self, queue: str, builder: cst.FunctionDef, body) -> Tuple[cst.BaseStatement, cst.Call,
                                                                              Optional[cst.BaseExpression]]:
        """(its statement, the call, the target or None when it is an element of the return) for the
        one `target = queue.dequeue()` (or dequeue_many / dequeue_up_to) of the builder's body."""
        tree = self.tree
        found = []
        for ref in self._refs(queue, builder):
            attribute = tree.parent.get(id(ref))
            if isinstance(attribute, cst.Attribute) and attribute.value is ref and attribute.attr.value.startswith(
                    "dequeue"):
                found.append(tree.parent.get(id(attribute)))
        if len(found) != 1 or not isinstance(found[0], cst.Call):
            raise Declined("it is dequeued %d times in `%s()`" % (len(found), builder.name.value))
        call = found[0]
        if call.func.attr.value not in ("dequeue", "dequeue_many", "dequeue_up_to"):
            raise Declined("its dequeue %s is not dequeue, dequeue_many or dequeue_up_to" % tree.where(call))
        stmt = self._statement_of_body(call, builder, "its dequeue")
        assign = cstutil.single_assign(stmt)
        if assign is not None and assign[1] is call and all(
                isinstance(target, cst.Name) for target in python_fed._targets(assign[0])):
            return stmt, call, assign[0]
        last = cstutil.single_small(body[-1])
        if stmt is body[-1] and isinstance(last, cst.Return) and isinstance(last.value, cst.Tuple) and any(
                element.value is call for element in last.value.elements):
            return stmt, call, None
        raise Declined("its dequeue %s is neither assigned to names nor an element of the returned tuple"
                       % tree.where(call))

    def _returned(self, builder, body, enqueue, dequeue: cst.Call) -> Tuple[List[Optional[str]], cst.BaseStatement]:
        """(the names the builder returns, None for the dequeue returned in place, its return)."""
        returns = [node for node in cstutil.nodes_of(builder.body, (cst.Return,)) if self.tree.function(node) is builder]
        last = cstutil.single_small(body[-1])
        if len(returns) != 1 or last is not returns[0] or not isinstance(last.value, cst.Tuple) or not all(
                isinstance(e.value, cst.Name) or e.value is dequeue for e in last.value.elements):
            raise Declined("`%s()` does not end with its one return of a tuple of names" % builder.name.value)
        returned = [e.value.value if isinstance(e.value, cst.Name) else None for e in last.value.elements]
        reads = [ref for ref in self._refs(enqueue, builder) if not self.tree.within(ref, body[-1])]
        if returned.count(enqueue) != 1 or len(reads) != 1:  # its assignment, and the return
            raise Declined("`%s()` uses its enqueue op `%s` beyond returning it" % (builder.name.value, enqueue))
        return returned, body[-1]

    def _element(self, ds: str, call: cst.Call, target, count) -> List[str]:
        """The dequeue's batching and its element, bound to `target` (None: to the returned value)."""
        lines = []
        method = call.func.attr.value
        if method != "dequeue":
            bound = bind_arguments(call, ("n", "name"), "its " + method)
            if "n" not in bound:
                raise Declined("its %s has no count" % method)
            batching = Batching(batch_size=self.tree.source(bound["n"]),
                                allow_smaller_final_batch=method == "dequeue_up_to")
            lines.append("%s = %s.%s" % (ds, ds, synth._batch(ds, batching, self.tf, self.target)))
        element = "%s.get_next()" % synth._one_shot(ds, self.tf, self.target)
        if target is not None and isinstance(target, (cst.Tuple, cst.List)):
            return lines + ["%s = %s" % (self.tree.source(target), element)]
        name = self.tree.source(target) if target is not None else "dequeued"
        if count is None:  # as the queue's dequeue gave it
            lines += ["%s = %s" % (name, element),
                      "# One component dequeued alone was a tensor, several a list.\n"
                      "%s = %s[0] if len(%s) == 1 else list(%s)" % ((name,) * 4)]
        else:
            lines.append("%s = %s" % (name, "%s[0]" % element if count == 1 else "list(%s)" % element))
        return lines

    def _starter(self, starter: cst.FunctionDef, runner: cst.FunctionDef):
        """(the Thread call, (coordinator name, its call) or None, the names it returns)."""
        thread, coordinator, thread_name, returned = None, None, None, []
        for stmt in self._body(starter):
            assign = cstutil.single_assign(stmt)
            small = cstutil.single_small(stmt)
            value = assign[1] if assign is not None else None
            resolved = self.imports.resolve(value.func) if isinstance(value, cst.Call) else None
            if assign is not None and isinstance(assign[0], cst.Name) and resolved == "tensorflow.train.Coordinator" \
                    and coordinator is None:
                coordinator = (assign[0].value, value)
            elif assign is not None and isinstance(assign[0], cst.Name) and resolved == "threading.Thread" \
                    and thread is None:
                thread, thread_name = value, assign[0].value
            elif thread_name is not None and self._thread_chore(stmt, thread_name):
                continue
            elif isinstance(small, cst.Return) and stmt is self._body(starter)[-1]:
                value = small.value
                elements = value.elements if isinstance(value, cst.Tuple) else ([cst.Element(value)] if value else [])
                returned = [e.value.value if isinstance(e.value, cst.Name) else None for e in elements]
                if any(name not in (thread_name, coordinator and coordinator[0]) for name in returned):
                    raise Declined("`%s()` returns something other than its thread and coordinator"
                                   % starter.name.value)
            else:
                raise Declined("`%s()` does more than start the thread %s" % (starter.name.value,
                                                                              self.tree.where(stmt)))
        if thread is None:
            raise Declined("`%s()` starts no threading.Thread" % starter.name.value)
        bound = bind_arguments(thread, _THREAD, "threading.Thread")
        if not (isinstance(bound.get("target"), cst.Name) and bound["target"].value == runner.name.value):
            raise Declined("the thread %s does not run `%s()`" % (self.tree.where(thread), runner.name.value))
        if set(bound) - {"target", "args", "daemon", "name"}:
            raise Declined("the thread %s is given `kwargs=` or `group=`" % self.tree.where(thread))
        if len(self._refs(runner.name.value, self.tree.module)) != 1:
            raise Declined("`%s()` is named elsewhere too" % runner.name.value)
        return thread, coordinator, [(name, starter) for name in returned]

    @staticmethod
    def _thread_chore(stmt, thread: str) -> bool:
        """`t.start()`, `t.daemon = True`, `t.setDaemon(True)`."""
        small = cstutil.single_small(stmt)
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            func = small.value.func
            return isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == thread \
                and func.attr.value in ("start", "setDaemon")
        assign = cstutil.single_assign(stmt)
        return assign is not None and isinstance(assign[0], cst.Attribute) and isinstance(assign[0].value, cst.Name) \
            and assign[0].value.value == thread and assign[0].attr.value == "daemon"

    def _stops(self, caller, caller_body, start_stmt, started) -> List[cst.BaseStatement]:
        """The caller's statements that only stop and join what the starter returned (which it
        must read nowhere else)."""
        assign = cstutil.single_assign(start_stmt)
        names = []
        if assign is not None:
            targets = assign[0].elements if isinstance(assign[0], (cst.Tuple, cst.List)) else [cst.Element(assign[0])]
            if not all(isinstance(e.value, cst.Name) for e in targets) or len(targets) != len(started):
                raise Declined("the starter's results are not unpacked into names %s" % self.tree.where(start_stmt))
            names = [e.value.value for e in targets]
        elif not isinstance(cstutil.single_small(start_stmt), cst.Expr):
            raise Declined("the starter's call %s is part of a larger statement" % self.tree.where(start_stmt))
        lines = []
        for name in names:
            for ref in self._refs(name, caller):
                stmt = self.tree.statement(ref)
                if stmt is start_stmt:
                    continue
                if not self._stop_line(stmt, names):
                    raise Declined("`%s()` uses `%s`, which the thread's starter returns, beyond stopping and joining "
                                   "it %s" % (caller.name.value, name, self.tree.where(ref)))
                if stmt not in lines:
                    lines.append(stmt)
        return lines

    @staticmethod
    def _stop_line(stmt, names) -> bool:
        """`coord.request_stop()` / `coord.join(...)` of the names only, alone on the line."""
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        for small in stmt.body:
            call = small.value if isinstance(small, cst.Expr) else None
            if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                    and isinstance(call.func.value, cst.Name) and call.func.value.value in names
                    and call.func.attr.value in ("request_stop", "join")):
                return False
            if call.func.attr.value == "request_stop" and call.args:
                return False  # an exception handed over, which join() raises again
            if any(name not in names for arg in call.args for name in cstutil.name_uses(arg).loads):
                return False
        return True

    def _loop(self, runner, run, thread, coordinator, starter, start):
        """(the thread function's loop, the statement that runs the enqueue op, the feed)."""
        body = self._body(runner)
        if len(body) != 1 or not isinstance(body[0], cst.While) or body[0].orelse is not None:
            raise Declined("`%s()` is not one `while` loop" % runner.name.value)
        loop = body[0]
        params = self._plain_params(runner)
        thread_args = self._thread_args(thread, params)
        coord_param = next((p for p, given in thread_args.items()
                            if coordinator is not None and given == coordinator[0]), None)
        test = loop.test
        stop = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and isinstance(
            test.expression, cst.Call) and isinstance(test.expression.func, cst.Attribute) and isinstance(
            test.expression.func.value, cst.Name) and test.expression.func.value.value == coord_param and \
            test.expression.func.attr.value == "should_stop" and not test.expression.args
        if not (stop or (isinstance(test, cst.Name) and test.value == "True")):
            raise Declined("`%s()`'s loop runs while `%s`, not until its coordinator stops it"
                           % (runner.name.value, self.tree.source(test)))
        run_stmt = self.tree.statement(run)
        if not isinstance(loop.body, cst.IndentedBlock) or not self.tree.within(run_stmt, loop.body):
            raise Declined("`%s()`'s loop does not run the enqueue op" % runner.name.value)
        if not (isinstance(cstutil.single_small(run_stmt), cst.Expr) and cstutil.single_small(run_stmt).value is run):
            raise Declined("the run %s is part of a larger statement" % self.tree.where(run))
        bound = bind_arguments(run, ("fetches", "feed_dict", "options", "run_metadata"), "its run")
        if set(bound) != {"fetches", "feed_dict"} or not isinstance(run.func.value, cst.Name):
            raise Declined("the run %s is not `sess.run(op, feed_dict=...)`" % self.tree.where(run))
        session, op = run.func.value.value, bound["fetches"]
        others = {session, coord_param} | ({op.value} if isinstance(op, cst.Name) else set())
        # The session, op and coordinator are read by the run only; nothing returns or yields.
        in_loop, in_run = Counter(cstutil.name_uses(loop.body).loads), Counter(cstutil.name_uses(run_stmt).loads)
        extra = sorted(name for name in others if name and in_loop[name] != in_run[name])
        if extra or cstutil.nodes_of(loop.body, (cst.Return, cst.Yield, cst.Global, cst.Nonlocal)):
            raise Declined("`%s()`'s loop does more than feed the queue%s" % (
                runner.name.value, " (it reads `%s` elsewhere)" % extra[0] if extra else ""))
        if set(cstutil.name_uses(bound["feed_dict"]).loads) & others:
            raise Declined("its feed_dict reads the session or the coordinator")
        return loop, run_stmt, bound["feed_dict"]

    def _thread_args(self, thread, params) -> Dict[str, Optional[str]]:
        """The thread function's parameter -> the starter's name given for it."""
        given = bind_arguments(thread, _THREAD, "threading.Thread").get("args")
        if given is None:
            values = []
        elif isinstance(given, cst.Tuple) and all(isinstance(e.value, cst.Name) for e in given.elements):
            values = [e.value.value for e in given.elements]
        else:
            raise Declined("the thread's `args=` is not a literal tuple of names")
        if len(values) != len(params):
            raise Declined("the thread's `args=` does not give each parameter of its function")
        return dict(zip(params, values))

    def _sources(self, runner, thread, starter, start, caller, caller_body, call_stmt, unpacked, returned, builder,
                 builder_params, run_stmt, loop) -> List[Tuple[str, Optional[str]]]:
        """For each parameter the loop reads (not the session, op or coordinator): (its name, the
        caller's name to pass to the builder, or None when it is a value the builder returned)."""
        params = self._plain_params(runner)
        thread_args = self._thread_args(thread, params)
        starter_params = self._plain_params(starter)
        start_args = bind_arguments(start, starter_params, "the starter's call", "`%s()`" % starter.name.value)
        read = set(cstutil.name_uses(loop.body).loads)
        out = []
        builder_names = cstutil.scoped_uses(builder).stores | set(builder_params)
        call_index = caller_body.index(call_stmt)
        for param in params:
            if param not in read or param in self._excluded(loop, run_stmt):
                continue
            in_starter = thread_args[param]
            if in_starter not in start_args:
                raise Declined("`%s()` gives its thread's `%s` something other than its parameters" % (
                    starter.name.value, param))
            given = start_args[in_starter]
            if not isinstance(given, cst.Name):
                raise Declined("the caller passes `%s` for `%s`, not a name" % (self.tree.source(given), param))
            name = given.value
            if name in unpacked:
                local = returned[unpacked.index(name)]
                if local != param:
                    raise Declined("the thread reads `%s()`'s `%s` as `%s`" % (builder.name.value, local, param))
                out.append((param, None))
                continue
            if param in builder_names:
                raise Declined("`%s()` already uses the name `%s`, which it would take as a parameter"
                               % (builder.name.value, param))
            # Bound (a parameter, or by statements of the body) only before the builder's call: the
            # builder then gets the object the thread got.
            binders = [index for index, stmt in enumerate(caller_body) if name in cstutil.name_uses(stmt).stores]
            if not (binders or name in self._plain_params(caller)) or (binders and max(binders) > call_index):
                raise Declined("`%s` is not bound in `%s()` only before `%s()` is called, to be passed to it" % (
                    name, caller.name.value, builder.name.value))
            out.append((param, name))
        return out

    @staticmethod
    def _excluded(loop, run_stmt) -> Set[str]:
        """The session, op and coordinator: the names the run's receiver and fetch and the loop's test read."""
        run = cstutil.single_small(run_stmt).value
        names = {run.func.value.value}
        names |= set(cstutil.name_uses(run.args[0].value).loads)
        names |= set(cstutil.name_uses(loop.test).loads)
        return names

    def _generator(self, runner, loop, run_stmt, feed, vals) -> str:
        """The thread function's loop as a generator of the fed values, in the queue's component
        order: `while True:`, the run a yield."""
        feed_name = feed.value if isinstance(feed, cst.Name) else "fed_values"
        given = {self.tree.text(element.key): element.value for element in feed.elements
                 if isinstance(element, cst.DictElement)} if isinstance(feed, cst.Dict) else {}
        if isinstance(vals, cst.List) and len(given) == len(feed.elements) == len(vals.elements) and all(
                self.tree.text(e.value) in given for e in vals.elements):
            # `feed_dict={x: row, i: index}` of the components themselves: their values, in order.
            values = ", ".join(self.tree.source(given[self.tree.text(e.value)]) for e in vals.elements)
            feed = cst.Name(feed_name)  # nothing to bind first
        elif isinstance(vals, cst.List):
            values = ", ".join("%s[%s]" % (feed_name, self.tree.source(e.value)) for e in vals.elements)
        else:
            values = "tuple(%s[component] for component in %s)" % (feed_name, vals.value)
        yielded = "yield %s\n" % values
        if not isinstance(feed, cst.Name):  # the feed is made once, then read per component
            yielded = "%s = %s\n%s" % (feed_name, self.tree.source(feed), yielded)
        replacement = cst.parse_module(yielded).body
        body = loop.body.deep_replace(run_stmt, cst.FlattenSentinel(
            [replacement[0].with_changes(leading_lines=run_stmt.leading_lines)] + list(replacement[1:])))
        code = self.tree.module.code_for_node(loop.with_changes(test=cst.Name("True"), body=body,
                                                                leading_lines=()))
        return "def %s():\n%s" % (runner.name.value, "\n".join(
            "    " + line if line.strip() else "" for line in code.rstrip("\n").split("\n")))

    def _types(self, node) -> str:
        """A tuple of the queue's dtypes (or shapes): from_generator's elements are tuples."""
        if isinstance(node, (cst.List, cst.Tuple)):
            return "(%s,)" % self.tree.source(node.elements[0].value) if len(node.elements) == 1 else \
                "(%s)" % ", ".join(self.tree.source(e.value) for e in node.elements)
        return "tuple(%s)" % self.tree.source(node)

    def _shapes(self, args) -> str:
        """`, output_shapes=...` for a queue with `shapes=` (its dequeue had those static shapes)."""
        shapes = args.get("shapes")
        if shapes is None or isinstance(shapes, cst.Name) and shapes.value == "None":
            return ""
        return ", output_shapes=%s" % self._types(shapes)


def _with_params(names: List[str]) -> Callable[[cst.FunctionDef], cst.FunctionDef]:
    def rewrite(function: cst.FunctionDef) -> cst.FunctionDef:
        params = list(function.params.params)
        if params:
            params[-1] = params[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        params += [cst.Param(cst.Name(name), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                   for name in names]
        params[-1] = params[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return function.with_changes(params=function.params.with_changes(params=params))
    return rewrite
