"""Recognise hand-built queues fed from Python threads and rewrite them with `Dataset.from_generator`.

    self.x = tf.placeholder(tf.float32, [None, 80])            # placeholders (on self or local)
    self.queue = tf.PaddingFIFOQueue(64, [tf.float32], shapes=[[None, 80]])
    self.enqueue = self.queue.enqueue([self.x])
    self.inputs = self.queue.dequeue_many(batch_size)           # in the block that built the queue
    def thread_main(self, sess):                                # the one producer
        for x in self.examples():
            sess.run(self.enqueue, feed_dict={self.x: x})
    threading.Thread(target=self.thread_main, args=(sess,)).start()

The thread function becomes a generator (its `sess.run(enqueue, feed_dict)` a `yield` of the fed
values in the queue's component order), the dequeue a dataset over it, and the thread start, the
queue's close and the placeholders go. `find` returns, per queue fed this way, a `Plan` of edits
or the precise reason it stays; `apply` makes a plan's edits. Both never raise.
"""
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Set, Tuple

import libcst as cst

from qmigrate import cstutil, fed_batching, python_reads, synth, wording
from qmigrate.handbuilt import Declined, bind_arguments  # one reading of call arguments for both
from qmigrate.model import Batching
from qmigrate.names import ImportMap
from qmigrate.rules.base import is_none
from qmigrate.targets import Target

_FIFO, _PADDING, _SHUFFLE = "tensorflow.FIFOQueue", "tensorflow.PaddingFIFOQueue", "tensorflow.RandomShuffleQueue"
_SIGNATURES = {
    _FIFO: ("capacity", "dtypes", "shapes", "names", "shared_name", "name"),
    _PADDING: ("capacity", "dtypes", "shapes", "names", "shared_name", "name"),
    _SHUFFLE: ("capacity", "min_after_dequeue", "dtypes", "shapes", "names", "seed", "shared_name", "name"),
}
_PLACEHOLDER = ("dtype", "shape", "name")
_THREAD = ("group", "target", "name", "args", "kwargs", "daemon")
_DEQUEUES = ("dequeue", "dequeue_many", "dequeue_up_to")
# Statements about the producer thread that go with it: `t.daemon = True`, `t.start()`, ...
_THREAD_METHODS = ("start", "join", "setDaemon", "isDaemon", "setName")


def worth_scanning(source: bytes) -> bool:
    """Whether a module may hold a queue fed from a Python thread (plain text, before any work)."""
    return b"placeholder" in source and b"Queue" in source


@dataclass
class Plan:
    """The edits of one queue's migration, by original node identity (the nodes are the module's)."""

    queue_call: cst.Call
    detail: str  # what differs, said in the finding
    removed: Set[int] = field(default_factory=set)  # id(statement)
    replaced: Dict[int, List[str]] = field(default_factory=dict)  # id(statement) -> new statements (source)
    nodes: Dict[int, Callable[[cst.CSTNode], cst.CSTNode]] = field(default_factory=dict)  # id(node) -> rewrite
    moved: Dict[int, int] = field(default_factory=dict)  # id(statement) -> id(a later statement put before it)
    before: Dict[int, List[str]] = field(default_factory=dict)  # id(statement) -> new statements put before it
    also: List[cst.Call] = field(default_factory=list)  # the constructors of the other arms (one queue per arm)
    # The batchers after the dequeue, now dataset stages (fed_batching), and the statements moved
    # into its map function (their comments go with them).
    batchers: List[cst.Call] = field(default_factory=list)
    mapped: Set[int] = field(default_factory=set)
    kept_batchers: Dict[int, str] = field(default_factory=dict)  # id(batcher call) -> why it keeps its queue
    # returned_feeds: the plumbing calls that go with the thread's starter, and the top-level
    # functions whose signature changes or that go (callers in other modules are looked for).
    gone: List[cst.Call] = field(default_factory=list)
    changed: List[str] = field(default_factory=list)


@dataclass(frozen=True)
class Refusal:
    queue_call: cst.Call
    reason: str


class _Tree:
    """Parents of every node of a module, and the questions asked of them."""

    def __init__(self, module: cst.Module, line_of: Callable[[cst.CSTNode], int]):
        self.module, self.line_of = module, line_of
        self.parent: Dict[int, cst.CSTNode] = {}
        # Names and attributes by their (last) name, in the order a visit meets them: _refs looks
        # there instead of visiting the module again for every question.
        self.names: Dict[str, List[cst.Name]] = {}
        self.attributes: Dict[str, List[cst.Attribute]] = {}
        # Dataset names given out per scope (id of its node), by queue (id of its constructor call):
        # two queues of one scope get two.
        self.datasets_given: Dict[int, Dict[int, str]] = {}
        stack: List[cst.CSTNode] = []
        tree = self

        class _Walk(cst.CSTVisitor):
            def on_visit(self, node):
                if stack:
                    tree.parent[id(node)] = stack[-1]
                stack.append(node)
                if isinstance(node, cst.Name):
                    tree.names.setdefault(node.value, []).append(node)
                elif isinstance(node, cst.Attribute):
                    tree.attributes.setdefault(node.attr.value, []).append(node)
                return True

            def on_leave(self, original_node):
                stack.pop()

        cstutil.walk(module, _Walk())

    def within(self, node: cst.CSTNode, root: cst.CSTNode) -> bool:
        """Whether `node` is `root` or under it."""
        return node is root or any(ancestor is root for ancestor in self.up(node))

    def up(self, node: cst.CSTNode):
        while id(node) in self.parent:
            node = self.parent[id(node)]
            yield node

    def statement(self, node: cst.CSTNode) -> cst.BaseStatement:
        return next(a for a in self.up(node) if isinstance(a, (cst.SimpleStatementLine, cst.BaseCompoundStatement)))

    def block(self, stmt: cst.BaseStatement):
        """The block (IndentedBlock or Module) holding a statement."""
        return self.parent[id(stmt)]

    def function(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        return next((a for a in self.up(node) if isinstance(a, cst.FunctionDef)), None)

    def class_of(self, function: Optional[cst.FunctionDef]) -> Optional[cst.ClassDef]:
        """The class a function is a method of (defined right in its body), else None."""
        if function is None:
            return None
        block = self.parent.get(id(function))
        owner = self.parent.get(id(block)) if block is not None else None
        return owner if isinstance(owner, cst.ClassDef) else None

    def in_loop(self, node: cst.CSTNode, within: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The loop (or comprehension) around `node` inside `within`, if any."""
        for ancestor in self.up(node):
            if ancestor is within:
                return None
            if isinstance(ancestor, (cst.For, cst.While, cst.CompFor)):
                return ancestor
        return None

    def text(self, node: cst.CSTNode) -> str:
        return re.sub(r"\s+", "", self.module.code_for_node(node))

    def source(self, node: cst.CSTNode) -> str:
        """The node's code on one line (line continuations and breaks made spaces)."""
        return " ".join(re.sub(r"\\[ \t]*\r?\n", " ", self.module.code_for_node(node)).split())

    def where(self, node: cst.CSTNode) -> str:
        """`<statement>` (line N), to name a construct in a reason."""
        stmt = self.statement(node) if not isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) \
            else node
        if isinstance(stmt, cst.BaseCompoundStatement):
            code = self.module.code_for_node(stmt.with_changes(leading_lines=())).strip().splitlines()[0]
        else:
            code = self.source(stmt.with_changes(leading_lines=()))  # without the comments above it
        code = code if len(code) <= 70 else code[:67] + "..."
        return "`%s` (line %d)" % (code, self.line_of(stmt))


def is_reference(tree: _Tree, node: cst.Name) -> bool:
    """Whether the Name is a reference (not an attribute's name, a keyword, a parameter or a def's name)."""
    parent = tree.parent.get(id(node))
    if isinstance(parent, cst.Attribute) and parent.attr is node:
        return False
    if isinstance(parent, (cst.Arg, cst.Param)) and (getattr(parent, "keyword", None) is node
                                                      or getattr(parent, "name", None) is node):
        return False
    if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is node:
        return False
    return True


def _refs(tree: _Tree, root: cst.CSTNode, text: str) -> List[cst.CSTNode]:
    """The nodes spelling one reference (`x`, or `self.x` as the outermost such attribute) under
    `root`, in the order of a visit (from the tree's index: no visit of the module per question)."""
    if "." not in text:
        return [node for node in tree.names.get(text, ()) if tree.within(node, root) and is_reference(tree, node)]
    last = text.rsplit(".", 1)[-1]
    # An attribute spelling `self.x` holds no other (it is `self` and `.x`).
    return [node for node in tree.attributes.get(last, ()) if tree.text(node) == text and tree.within(node, root)]


def _elements(node, what: str) -> List[cst.BaseExpression]:
    if not isinstance(node, (cst.List, cst.Tuple)) or any(isinstance(e, cst.StarredElement) for e in node.elements):
        spelled = "" if node is None else " (`%s`)" % " ".join(cst.Module([]).code_for_node(node).split())
        raise Declined("%s%s is not a literal list, so its components cannot be read" % (what, spelled))
    return [e.value for e in node.elements]


def _method_of(tree: _Tree, ref: cst.CSTNode, methods) -> Optional[cst.Call]:
    """The call `ref.<method>(...)` that `ref` is the receiver of."""
    attribute = tree.parent.get(id(ref))
    call = tree.parent.get(id(attribute)) if attribute is not None else None
    if (isinstance(attribute, cst.Attribute) and attribute.value is ref and attribute.attr.value in methods
            and isinstance(call, cst.Call) and call.func is attribute):
        return call
    return None


def find(module: cst.Module, imports: ImportMap, line_of: Callable[[cst.CSTNode], int],
         queue_calls: List[cst.Call], tf: str, target: Target, keep: Optional[Dict[str, str]] = None) -> List[object]:
    """A Plan or a Refusal for each of `queue_calls` (hand-built queue constructors) that is fed
    from Python (its enqueue reads placeholders, or is run with a feed_dict); the others are not
    returned. Never raises. `keep`: functions other code calls (name -> why they stay as they are)."""
    tree = _Tree(module, line_of)
    found = []
    for call in queue_calls:
        reader = _Reader(tree, imports, call, tf, target, keep or {})
        try:
            plan = reader.read()
        except Exception as error:  # a refusal, or a shape this reader did not foresee: left as it is
            if reader.fed:
                reason = str(error) if isinstance(error, Declined) else (
                    "its producer has a shape qmigrate does not follow (%s)" % type(error).__name__)
                arms = getattr(reader, "arms", None)
                found += [Refusal(c, reason) for c in (arms.calls if arms is not None else [call])
                          if c is call or c in queue_calls]
            continue
        if plan is not None:
            found.append(plan)
    return _one_plan_per_statement(found)


def _one_plan_per_statement(found: List[object]) -> List[object]:
    """Two queues whose edits touch one statement would undo each other: both stay."""
    seen: Dict[int, int] = {}
    for plan in found:
        if isinstance(plan, Plan):
            for key in set(plan.removed) | set(plan.replaced) | set(plan.nodes) | set(plan.before):
                seen[key] = seen.get(key, 0) + 1
    out = []
    for plan in found:
        if isinstance(plan, Plan) and any(seen[k] > 1 for k in set(plan.removed) | set(plan.replaced) | set(plan.nodes)
                                          | set(plan.before)):
            plan = Refusal(plan.queue_call, "another queue fed from Python shares its statements")
        out.append(plan)
    return out


class _Reader:
    """Reads one queue and what feeds it; `read` returns a Plan, None (not fed from Python) or
    raises Declined. `fed` tells, once read, whether the queue is fed from Python at all."""

    def __init__(self, tree: _Tree, imports: ImportMap, call: cst.Call, tf: str, target: Target,
                 keep: Dict[str, str]):
        self.tree, self.imports, self.call, self.tf, self.target = tree, imports, call, tf, target
        self.keep = keep
        self.kind = imports.resolve(call.func)
        self.fed = False
        self.arms: Optional[_Arms] = None  # a queue per arm of an if
        self.parts = None  # (lists, placeholders) an enqueue of `self.xs + [self.y]` adds up
        self.buffers = []
        self.tail: Optional[fed_batching.Tail] = None

    # -- the queue, its enqueue op and its placeholders ------------------------------------------
    def read(self) -> Optional[Plan]:
        tree = self.tree
        ctor_stmt = tree.statement(self.call)
        assign = cstutil.single_assign(ctor_stmt)
        function = tree.function(ctor_stmt)
        self.cls, self.ctor_function = tree.class_of(function), function
        if assign is None or assign[1] is not self.call or not _is_ref(assign[0]):
            return self._unclear("its constructor %s is not assigned to a name or a `self.` attribute"
                                 % tree.where(ctor_stmt))
        block = tree.block(ctor_stmt)
        queue = tree.text(assign[0])
        if queue.startswith("self.") and self.cls is None:
            return None
        self.queue = queue
        loop = tree.in_loop(ctor_stmt, function or tree.module)
        if loop is not None:
            return self._unclear("it is built in a loop %s: a queue per iteration, each filled by a producer of its "
                                 "own; qmigrate follows one queue built once" % tree.where(loop))
        region = self.region_for(queue)
        self.arms = self._queue_arms(queue, region)
        targets = {id(assign[0])}
        if self.arms is not None:  # a queue per arm of an if: read from its first, as one queue built at the if
            if self.arms.calls[0] is not self.call:
                return None
            ctor_stmt, block = self.arms.statement, tree.block(self.arms.statement)
            targets = {id(cstutil.single_assign(tree.statement(c))[0]) for c in self.arms.calls}
        body = list(block.body)
        ctor_index = body.index(ctor_stmt)
        refs = [r for r in _refs(tree, region, queue) if id(r) not in targets]
        enqueues = [(r, c) for r in refs for c in [_method_of(tree, r, ("enqueue", "enqueue_many"))] if c]
        if len(enqueues) != 1 or (self.arms is None and len(self._bindings(queue, region)) > 1):
            for _, call in enqueues:  # an enqueue op run with a feed_dict: fed from Python
                target = cstutil.single_assign(tree.statement(call))
                if target and _is_ref(target[0]) and self._runs_by_name(tree.text(target[0])):
                    self.fed = True
            return self._unclear(self._not_one_enqueue(queue, region, assign[0], [c for _, c in enqueues], refs))
        enqueue_ref, enqueue_call = enqueues[0]
        enqueue_stmt = tree.statement(enqueue_call)
        enqueue_assign = cstutil.single_assign(enqueue_stmt)
        if enqueue_assign is None or enqueue_assign[1] is not enqueue_call or not _is_ref(enqueue_assign[0]):
            return self._unclear("its enqueue op %s is not assigned to a name or a `self.` attribute"
                                 % tree.where(enqueue_stmt))
        enqueue = tree.text(enqueue_assign[0])
        bound = bind_arguments(enqueue_call, ("vals", "name"), "its enqueue")
        self.growing = None  # the list the components are read from at run time (see _components)
        self.growing_least = 0  # how many components it has at least (a literal list grown by appends)
        components, vals_text = self._components(bound.get("vals"), body[:body.index(enqueue_stmt)]
                                                 if enqueue_stmt in body else [], body, enqueue_stmt)
        runs = self._enqueue_runs(enqueue, enqueue_assign[0])
        elsewhere = [call for call in self._runs_by_name(enqueue) if all(call is not run for run, _ in runs)]
        self.fed = (bool(components) or self.growing is not None or any(feed is not None for _, feed in runs)
                    or bool(elsewhere)
                    or self._mentions_placeholder(bound.get("vals")))
        if not self.fed:
            return None
        if elsewhere:
            function = tree.function(elsewhere[0])
            returned = self._returned(enqueue, function, elsewhere[0])
            if returned is not None and len(elsewhere) == 1:
                return self._returned_feed(enqueue, enqueue_stmt, function, elsewhere[0])
            if returned is not None:
                if not components and self.growing is None:
                    # Carrying the arguments across would not be enough: said together.
                    returned += "; and its enqueue %s does not enqueue %s" % (
                        tree.where(enqueue_stmt), self._vals_spelling(bound.get("vals")))
                raise Declined(returned)
            raise Declined("its enqueue op is run with a feed_dict %s%s, which gets it from elsewhere (returned or "
                           "passed in): qmigrate follows an enqueue op within the class or function that builds it, "
                           "and into the thread that starts there" % (
                               "in `%s()` " % function.name.value if function is not None else "",
                               tree.where(elsewhere[0])))
        handed = self._handed_on(enqueue, enqueue_assign[0])
        idle = self._idle_runner(handed, enqueue) if handed is not None else None
        if idle is not None:
            raise Declined(idle)
        if handed is not None:
            copies = next((n for n in cstutil.nodes_of(handed, (cst.BinaryOperation,))
                           if isinstance(n.operator, cst.Multiply) and _refs(tree, n, enqueue)), None)
            resolved = self.imports.resolve(handed.func) or ""
            raise Declined("its enqueue op `%s` is handed to `%s(...)`%s in %s and run through it%s: qmigrate follows "
                           "an enqueue op that a thread runs with sess.run(op, feed_dict)" % (
                               enqueue, tree.source(handed.func),
                               "" if resolved.startswith("tensorflow.") else ", a queue runner of the program's own "
                               "whose threads feed it as that code decides",
                               tree.where(handed),
                               " (`%s`: a thread per copy, several producers filling one queue, and from_generator "
                               "has one)" % tree.source(copies) if copies is not None else ""))
        if enqueue_stmt not in body or body.index(enqueue_stmt) < ctor_index:
            raise Declined("its enqueue op %s is not built after it in the same block" % tree.where(enqueue_stmt))
        if not components and self.growing is None:
            # What would stop the rewrite whatever the enqueue reads is said first.
            raise Declined("; ".join(self._structural(runs, refs, body) + ["its enqueue %s does not enqueue %s" % (
                tree.where(enqueue_stmt), self._vals_spelling(bound.get("vals")))]))
        args = bind_arguments(self.call, _SIGNATURES[self.kind], "its constructor")
        if not is_none(args.get("shared_name")):
            raise Declined("it sets `shared_name=` (a queue shared between sessions)")
        if not is_none(args.get("names")):
            raise Declined("it has `names=` (dict elements), which qmigrate does not rewrite from Python yet")
        self.buffers = [(None, self.kind, args)]  # (arm test, queue kind, constructor arguments) per arm
        if self.arms is not None:
            self.buffers = self._arm_buffers(args)
        many = enqueue_call.func.attr.value == "enqueue_many"
        if self.growing is None:
            dtypes = [tree.source(d) for d in _elements(args.get("dtypes"), "its `dtypes=`")]
            if len(dtypes) != len(components):
                raise Declined("its `dtypes=` does not give one dtype per enqueued placeholder")
            shapes = self._shapes(args, components, many)
            spec = _Spec(dtypes[0] if len(dtypes) == 1 else "(%s)" % ", ".join(dtypes),
                         shapes[0] if len(shapes) == 1 else "(%s)" % ", ".join(shapes), len(dtypes) == 1)
        else:
            spec = self._growing_spec(args, body, ctor_index)

        # The one sess.run(enqueue, feed_dict=...) and the thread that runs it.
        if len(runs) != 1:
            raise Declined("its enqueue op is run in %d places (%s): several producers fill one queue, and "
                           "from_generator has one" % (len(runs), ", ".join(tree.where(r) for r, _ in runs))
                           if runs else "its enqueue op is never run with a feed_dict in this file")
        run_call, feed = runs[0]
        blocking = self._structural(runs, refs, body)
        if blocking:  # said together: either alone would stop the rewrite
            raise Declined("; ".join(blocking))
        plan = Plan(self.call, "")
        producer = self._producer(run_call, feed, components, vals_text, enqueue, plan)

        # The dequeue, in the block that built the queue.
        dequeues, anchor = self._dequeue(refs, body, body.index(enqueue_stmt))
        between = body[ctor_index + 1:body.index(anchor)]
        if self.arms is None:
            self._check_unchanged(args, between)
        else:  # each arm's arguments, and its test, are read again at the dequeue
            for call, (test, _, arm_args) in zip(self.arms.calls, self.buffers):
                arm = list(tree.block(tree.statement(call)).body)
                self._check_unchanged(dict(arm_args, test=test) if test is not None else arm_args,
                                      arm[arm.index(tree.statement(call)) + 1:] + between)
        self._check_available(producer, body, body.index(anchor))
        self._check_defined(producer, body, body.index(anchor), plan, len(dequeues) == 1)
        self._other_uses(refs, enqueue_ref, [call for _, call in dequeues], plan)
        plan.removed.update({id(ctor_stmt), id(enqueue_stmt)})
        if self.arms is not None:
            plan.also = list(self.arms.calls[1:])
            constructors = [tree.statement(c) for c in self.arms.calls]
            if any(len(tree.block(stmt).body) > 1 for stmt in constructors):
                plan.removed.discard(id(ctor_stmt))  # the arms' other statements stay
                plan.removed.update(id(stmt) for stmt in constructors)
        self._drop_placeholders(components, vals_text, body, plan, producer)
        built = [self._dataset(stmt, call, args, spec, many, producer, len(dequeues) == 1)
                 for stmt, call in dequeues]
        if len(dequeues) > 1 and all(lines[:-1] == built[0][:-1] for lines in built) and all(
                tree.block(stmt).body[0] is stmt for stmt, _ in dequeues):
            # One dequeue per arm of an if (one runs), each first in its arm, so nothing the arm binds
            # reaches it: the same dataset, built once before the if.
            plan.before[id(anchor)] = built[0][:-1]
            built = [lines[-1:] for lines in built]
        for (dequeue_stmt, _), lines in zip(dequeues, built):
            plan.replaced[id(dequeue_stmt)] = lines
        plan.detail = self._detail(producer, args)
        if self.tail is not None and self.tail.refused is not None:
            plan.kept_batchers = {id(call): self.tail.refused for call in self.tail.batchers}
        elif self.tail is not None:
            plan.removed.update(id(stmt) for stmt in self.tail.removed)
            plan.mapped.update(id(stmt) for stmt in self.tail.removed)
            plan.batchers = list(self.tail.batchers)
            plan.detail += "; " + self.tail.detail
        return plan

    def _not_one_enqueue(self, queue, region, target, enqueues, refs) -> str:
        """Why a queue with no enqueue op, or several, in its class (function) is not followed:
        the name bound to several queues, one enqueue op per arm of an if, several producers, or
        the queue handed to code that fills it elsewhere."""
        tree = self.tree
        where = "class" if region is self.cls else "function"
        bindings = self._bindings(queue, region)
        statements = [tree.statement(b) for b in bindings]
        beside = len(bindings) > 1 and all(any(tree.block(tree.statement(c)) is tree.block(b) for c in enqueues)
                                           for b in statements)
        if len(bindings) > 1 and (self.arms is None or beside):
            arms = self._arms_of_one_if(statements) if len(set(map(id, statements))) == len(statements) else None
            if beside:
                why = ("each with an enqueue op of its own beside it (components of its own): qmigrate "
                       "follows a queue per arm of one if only when one enqueue op and one dequeue after the if serve "
                       "them all")
            elif arms is not None:
                why = ("the if has no else, so the name may hold another queue: qmigrate follows a queue per arm only "
                       "when every arm binds one")
            else:
                why = "not one per arm of one if: qmigrate follows a queue bound once, or once per arm of one if"
            return "`%s` is bound to %d queues in its %s (%s%s): %s%s" % (
                queue, len(bindings), where, ", ".join("line %d" % tree.line_of(b) for b in bindings),
                ", one per arm of %s" % tree.where(arms) if arms is not None else "", why,
                self._run_elsewhere(enqueues))
        if enqueues:
            statements = [tree.statement(c) for c in enqueues]
            arms = self._arms_of_one_if(statements) if len(set(map(id, statements))) == len(statements) else None
            return "`%s` has %d enqueue ops in its %s (%s): %s" % (
                queue, len(enqueues), where, ", ".join(tree.where(c) for c in enqueues),
                "one per arm of %s, decided when it is built; qmigrate follows one enqueue op" % tree.where(arms)
                if arms is not None else "several producers fill one queue, and from_generator has one")
        handed = [ref for ref in refs if isinstance(tree.parent.get(id(ref)), cst.Arg)]
        if handed:
            call = tree.parent.get(id(tree.parent[id(handed[0])]))
            self.fed = self.fed or (isinstance(call, cst.Call) and self._fills_by_feed(call))
            return ("`%s` has no enqueue op in its %s: it is handed to %s, which fills it away from where it is "
                    "built; qmigrate follows an enqueue op built beside the queue" % (
                        queue, where, "`%s(...)` in %s" % (tree.source(call.func), tree.where(call))
                        if isinstance(call, cst.Call) else tree.where(handed[0])))
        return "`%s` has no enqueue op in its %s (it is filled elsewhere)" % (queue, where)

    def _bindings(self, queue: str, region) -> List[cst.Assign]:
        """The statements binding `queue` to a queue constructor in its class (function)."""
        tree = self.tree
        return [node for node in cstutil.nodes_of(region, (cst.Assign,)) if len(node.targets) == 1
                and tree.text(node.targets[0].target) == queue and isinstance(node.value, cst.Call)
                and self.imports.resolve(node.value.func) in _SIGNATURES]

    def _queue_arms(self, queue: str, region) -> Optional["_Arms"]:
        """The if (with its elifs and an else) each of whose arms binds `queue`, once, to a queue
        constructor as a statement of its own: `if shuffle: q = RandomShuffleQueue(...) else: q =
        FIFOQueue(...)`. None when `queue` is bound otherwise."""
        tree = self.tree
        bindings = self._bindings(queue, region)
        if len(bindings) < 2:
            return None
        statements = [tree.statement(b) for b in bindings]
        if len(set(map(id, statements))) != len(statements) or any(cstutil.single_assign(s) is None
                                                                   for s in statements):
            return None
        top = self._arms_of_one_if(statements)
        if top is None:
            return None
        tests, blocks, arm = [], [], top
        while isinstance(arm, cst.If):
            tests.append(arm.test)
            blocks.append(arm.body)
            arm = arm.orelse
        if arm is None or len(blocks) + 1 != len(statements):
            return None  # no else: the name may keep what it held before the if
        blocks.append(arm.body)
        tests.append(None)
        calls = []
        for block in blocks:
            here = [s for s in statements if tree.block(s) is block]
            if len(here) != 1:
                return None
            calls.append(cstutil.single_assign(here[0])[1])
        return _Arms(top, tests, calls)

    def _run_elsewhere(self, enqueues) -> str:
        """`; its enqueue op ... is run nowhere in this file` when none of `enqueues` is run here."""
        tree = self.tree
        names = []
        for call in enqueues:
            assign = cstutil.single_assign(tree.statement(call))
            if assign is None or not _is_ref(assign[0]):
                return ""
            names.append(tree.text(assign[0]))
        if not names or any(self._runs_by_name(name) or any(self._run_of(r) for r in _refs(
                tree, self.region_for(name), name)) for name in names):
            return ""
        return ("; its enqueue op `%s` is run nowhere in this file: its producer is in another module, which "
                "qmigrate does not link to this queue" % names[0])

    def _fills_by_feed(self, call: cst.Call) -> bool:
        """Whether `call` makes a class (or calls a function) of this module that enqueues into a
        queue and runs something with a feed_dict: a queue handed to a Python feeder."""
        if not isinstance(call.func, cst.Name):
            return False
        for stmt in self.tree.module.body:
            if isinstance(stmt, (cst.ClassDef, cst.FunctionDef)) and stmt.name.value == call.func.value:
                calls = cstutil.calls_of(stmt)
                return any(isinstance(c.func, cst.Attribute) and c.func.attr.value in ("enqueue", "enqueue_many")
                           for c in calls) and any(a.keyword is not None and a.keyword.value == "feed_dict"
                                                   for c in calls for a in c.args)
        return False

    def _handed_on(self, enqueue: str, target) -> Optional[cst.Call]:
        """A call, other than a session's run, that the enqueue op is handed to (a queue runner of
        its own, a helper that runs it): the op is run there, where qmigrate does not follow."""
        tree = self.tree
        for ref in _refs(tree, self.region_for(enqueue), enqueue):
            if ref is target:
                continue
            for ancestor in tree.up(ref):
                if isinstance(ancestor, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                    break
                if isinstance(ancestor, cst.Call) and ancestor.func is not ref and not (
                        isinstance(ancestor.func, cst.Attribute) and ancestor.func.attr.value == "run") and (
                        self.imports.resolve(ancestor.func) != "threading.Thread"):
                    return ancestor
        return None

    def _structural(self, runs, refs, body) -> List[str]:
        """Reasons the queue is not rewritten that do not depend on how its components are spelled:
        producer threads started in a loop, a dequeue away from the block that builds it."""
        tree, out = self.tree, []
        for run, _ in runs[:1]:
            function = tree.function(run)
            for thread in cstutil.calls_of(tree.module):
                if self.imports.resolve(thread.func) == "threading.Thread" and self._thread_target(thread) is function:
                    loop = tree.in_loop(thread, tree.function(thread) or tree.module)
                    if loop is not None:
                        out.append("the thread that runs `%s()` is started in a loop %s: several producers fill one "
                                   "queue, and from_generator has one" % (function.name.value, tree.where(loop)))
                        break
        dequeues = [c for r in refs for c in [_method_of(tree, r, _DEQUEUES)] if c]
        away = [c for c in dequeues if not any(s in body for s in [tree.statement(c)] + list(tree.up(c)))]
        if away:
            out.append(_AWAY % tree.where(away[0]))
        return out

    def _returned(self, enqueue: str, runner: Optional[cst.FunctionDef], run: cst.Call) -> Optional[str]:
        """Why an enqueue op returned by the function that builds the queue, and run by a thread
        function elsewhere, is not followed; None when it is not returned."""
        tree, builder = self.tree, self.ctor_function
        if builder is None or enqueue.startswith("self.") or runner is None:
            return None
        returns = [r for r in cstutil.nodes_of(builder.body, (cst.Return,)) if r.value is not None
                   and tree.function(r) is builder and _refs(tree, r.value, enqueue)]
        if not returns:
            return None
        threads = [c for c in cstutil.calls_of(tree.module) if self.imports.resolve(c.func) == "threading.Thread"
                   and self._thread_target(c) is runner]
        if len(threads) == 1:
            bound = bind_arguments(threads[0], _THREAD, "threading.Thread")
            given = [tree.source(e) for e in _elements(bound["args"], "its Thread's `args=`")] if "args" in bound else []
            how = "as the target of the thread %s, given `%s`" % (tree.where(threads[0]), ", ".join(given))
        else:
            how = "%d threads run it" % len(threads) if threads else "no thread of this file runs it"
        return ("its enqueue op `%s` leaves `%s()` in its return value %s; `%s()` runs it with a feed_dict %s, %s: "
                "the dataset that replaces the dequeue is built in `%s()`, and its generator would need the arguments "
                "`%s()` gets elsewhere, which qmigrate does not carry into `%s()` (its signature, and every caller, "
                "would change)" % (enqueue, builder.name.value, tree.where(returns[0]), runner.name.value,
                                   tree.where(run), how, builder.name.value, runner.name.value, builder.name.value))

    def _returned_feed(self, enqueue, enqueue_stmt, runner, run) -> Plan:
        """The plan for an enqueue op its builder returns and a thread that another function of
        the module starts runs (returned_feeds); Declined with what stops it."""
        from qmigrate import returned_feeds  # (it reads this module's tree with this module's helpers)
        tree, builder = self.tree, self.ctor_function
        try:
            edits = returned_feeds.plan(tree, self.imports, self.call, builder, enqueue, enqueue_stmt, runner, run,
                                        self.tf, self.target, self.keep)
        except Declined as declined:
            returns = [r for r in cstutil.nodes_of(builder.body, (cst.Return,)) if r.value is not None
                       and tree.function(r) is builder and _refs(tree, r.value, enqueue)]
            raise Declined("its enqueue op `%s` leaves `%s()` in its return value%s, and `%s()` runs it with a feed_dict "
                           "%s: qmigrate would make that loop the generator of a dataset built in `%s()`, but %s" % (
                               enqueue, builder.name.value, " " + tree.where(returns[0]) if returns else "",
                               runner.name.value, tree.where(run), builder.name.value, declined))
        return Plan(self.call, edits.detail, removed=edits.removed, replaced=edits.replaced, nodes=edits.nodes,
                    gone=edits.gone, changed=edits.changed)

    def _idle_runner(self, handed: cst.Call, enqueue: str) -> Optional[str]:
        """Why a tf.train.QueueRunner that holds the enqueue op but is never started (no
        create_threads, not handed to anything) feeds no thread: its enqueue ops are run from the
        main code with a feed_dict. None when the runner may run threads."""
        tree = self.tree
        if self.imports.resolve(handed.func) != "tensorflow.train.QueueRunner":
            return None
        stmt = tree.statement(handed)
        assign = cstutil.single_assign(stmt)
        if assign is None or assign[1] is not handed or not _is_ref(assign[0]):
            return None
        runner = tree.text(assign[0])
        runs = []
        for ref in _refs(tree, self.region_for(runner), runner):
            if ref is assign[0]:
                continue
            parent = tree.parent.get(id(ref))
            if not (isinstance(parent, cst.Attribute) and parent.value is ref and parent.attr.value == "enqueue_ops"):
                return None  # started, handed on, or used otherwise
            runs += [call for call in self._run_of(parent) if call[1] is not None]
            if not self._run_of(parent):
                return None
        if not runs:
            return None
        run = runs[0][0]
        function = tree.function(run)
        if function is not None and any(self._thread_target(c) is function for c in cstutil.calls_of(tree.module)
                                        if self.imports.resolve(c.func) == "threading.Thread"):
            return None  # run by a thread after all
        return ("its enqueue op `%s` goes into the QueueRunner `%s` %s, which is never started (no create_threads, "
                "not registered): %s runs its enqueue ops with a feed_dict from the main code%s, not from a thread, "
                "so there is no producer loop to turn into a generator; the program decides when it feeds and "
                "reads the queue, which a dataset does not reproduce" % (
                    enqueue, runner, tree.where(handed), tree.where(run),
                    " of `%s()`" % function.name.value if function is not None else ""))

    def _unclear(self, reason: str) -> None:
        """A queue whose feeding is not followed: refused with `reason` when its class (or
        function) builds placeholders, the sign of a queue fed from Python; else not ours."""
        scope = self.cls or self.ctor_function or self.tree.module
        run_by_runner = any(
            self.imports.resolve(call.func) == "tensorflow.train.QueueRunner" and call.args
            and self.tree.text(call.args[0].value) == getattr(self, "queue", None) for call in cstutil.calls_of(scope))
        if self.fed or (not run_by_runner and any(self._is_placeholder(call) for call in cstutil.calls_of(scope))):
            self.fed = True
            raise Declined(reason)
        return None

    def region_for(self, text: str) -> cst.CSTNode:
        """Where a reference means one thing: its class for `self.x`, else the function (or module)
        that builds the queue."""
        if text.startswith("self.") and self.cls is not None:
            return self.cls
        return self.ctor_function if self.ctor_function is not None else self.tree.module

    def _runs_by_name(self, enqueue: str) -> List[cst.Call]:
        """`<s>.run(<...>.op, feed_dict)` anywhere in the module, for the enqueue op's last name `op`."""
        last = enqueue.rsplit(".", 1)[-1]
        found = []
        for call in cstutil.calls_of(self.tree.module):
            if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "run" and call.args
                    and call.args[0].keyword is None and _is_ref(call.args[0].value)):
                continue
            text = self.tree.text(call.args[0].value)
            if text.startswith("self.") and self.tree.class_of(self.tree.function(call)) is not self.cls:
                continue  # another class's op of the same name
            if not text.startswith("self.") and self._another_enqueue_op(call, text):
                continue  # another function's op of the same name
            if text.rsplit(".", 1)[-1] == last and (len(call.args) > 1 or any(
                    a.keyword is not None and a.keyword.value == "feed_dict" for a in call.args)):
                found.append(call)
        return found

    def _another_enqueue_op(self, run: cst.Call, name: str) -> bool:
        """Whether the plain `name` that `run` runs is, where it runs, a local variable of another
        function than the queue's, bound there to an enqueue op of its own (`name = q.enqueue(...)`
        in the function, or one around it, that binds `name` first going out): then it is another
        queue's op. A parameter (an op passed in, maybe ours), a `global`/`nonlocal` name or a name
        bound otherwise is not told apart: False."""
        tree = self.tree
        for function in (a for a in tree.up(run) if isinstance(a, cst.FunctionDef)):
            if function is self.ctor_function:
                return False
            params = {p.name.value for p in cstutil.nodes_of(function.params, (cst.Param,))}
            binds = [a for a in cstutil.nodes_of(function.body, (cst.Assign,)) if tree.function(a) is function
                     and any(isinstance(t.target, cst.Name) and t.target.value == name for t in a.targets)]
            declared = [n for d in cstutil.nodes_of(function.body, (cst.Global, cst.Nonlocal))
                        for n in d.names if n.name.value == name]
            if name in params or declared:  # passed in, or bound in a scope further out
                return False
            if binds:
                return all(isinstance(a.value, cst.Call) and isinstance(a.value.func, cst.Attribute)
                           and a.value.func.attr.value in ("enqueue", "enqueue_many") for a in binds)
        return False

    def _mentions_placeholder(self, vals) -> bool:
        """Whether the enqueued values read a reference bound to tf.placeholder (or a list of them)."""
        if vals is None:
            return False
        texts = {self.tree.text(n) for n in cstutil.nodes_of(vals, (cst.Name, cst.Attribute)) if _is_ref(n)}
        for text in texts:
            for node in cstutil.nodes_of(self.region_for(text), (cst.Assign,)):
                if len(node.targets) == 1 and self.tree.text(node.targets[0].target) == text and any(
                        self._is_placeholder(call) for call in cstutil.calls_of(node.value)):
                    return True
        return False

    def _components(self, vals, before, body, enqueue_stmt) -> Tuple[List[Tuple[str, cst.Call]], Optional[str]]:
        """[(placeholder reference, its tf.placeholder call)] in the enqueue's order, and the text of
        the list when the enqueue reads a name bound to a literal list of placeholders. A list that
        `.append(tf.placeholder(...))` statements grow before the enqueue (in branches taken at run
        time) has components known only when it runs: ([], its text), with `self.growing` set."""
        assigned = {}
        for stmt in before:
            assign = cstutil.single_assign(stmt)
            if assign and _is_ref(assign[0]):
                assigned[self.tree.text(assign[0])] = (stmt, assign[1])
        vals_text = None
        if vals is not None and _is_ref(vals) and isinstance(assigned.get(self.tree.text(vals), (None, None))[1],
                                                             (cst.List, cst.Tuple)):
            vals_text = self.tree.text(vals)
            stmt, value = assigned[vals_text]
            listed = [e.value for e in value.elements]
            named = [v for v in listed if not self._is_placeholder(v)]
            if not all(self._bound_to_placeholders(v) for v in named) or any(
                    isinstance(e, cst.StarredElement) for e in value.elements):
                return [], None
            self.fed = True  # it enqueues placeholders: a refusal below is said
            grown = self._growth(vals_text, stmt, vals, body, body.index(enqueue_stmt), self._is_placeholder,
                                 "tf.placeholder tensors")
            if grown or named:
                # Components known when it runs: appended in branches, or a name that each arm of
                # an if binds to a placeholder of its own (its dtype and shape read then).
                self.growing, self.growing_least = vals_text, len(listed)
                return [], vals_text
            return [("%s[%d]" % (vals_text, i), v) for i, v in enumerate(listed)], vals_text
        if isinstance(vals, cst.BinaryOperation) and isinstance(vals.operator, cst.Add):
            return self._concatenated(vals, assigned, body, enqueue_stmt)
        if not isinstance(vals, (cst.List, cst.Tuple)):
            return [], None
        out = []
        for element in vals.elements:
            value = element.value
            placeholder = assigned.get(self.tree.text(value), (None, None))[1] if _is_ref(value) else None
            if isinstance(element, cst.StarredElement) or not self._is_placeholder(placeholder):
                return [], None
            out.append((self.tree.text(value), placeholder))
        return out, None

    def _bound_to_placeholders(self, value) -> bool:
        """Whether `value` is a plain name that every binding of it in the queue's function (or
        class) binds to a tf.placeholder call (`x = tf.placeholder(...)` in each arm of an if)."""
        if not isinstance(value, cst.Name):
            return False
        assigns = [self.tree.parent.get(id(t)) for t in self._targets_binding(value.value)]
        return bool(assigns) and all(isinstance(a, cst.Assign) and len(a.targets) == 1 and self._is_placeholder(a.value)
                                     for a in assigns)

    def _targets_binding(self, text: str) -> List[cst.AssignTarget]:
        """The assignment targets that bind `text` (a name, `self.x`) in the queue's function or class."""
        return [t for t in cstutil.nodes_of(self.region_for(text), (cst.AssignTarget,)) if self.tree.text(t.target) == text]

    def _concatenated(self, vals, assigned, body, enqueue_stmt) -> Tuple[list, None]:
        """`self.xs + [self.y]`: lists of placeholders made by a comprehension before the enqueue
        (`[tf.placeholder(...) for ...]`, only read after) and literal lists of placeholder
        references, added up. How many there are is known when it runs: ([], None), with
        `self.growing` its text and `self.parts` (the lists, the single placeholders)."""
        tree = self.tree

        def flatten(node):
            if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
                return flatten(node.left) + flatten(node.right)
            return [node]
        lists, singles = [], []
        for part in flatten(vals):
            bound = assigned.get(tree.text(part), (None, None)) if _is_ref(part) else (None, None)
            if isinstance(part, cst.List):
                for element in part.elements:
                    value = element.value
                    if isinstance(element, cst.StarredElement) or not _is_ref(value) or not self._is_placeholder(
                            assigned.get(tree.text(value), (None, None))[1]):
                        return [], None
                    singles.append(tree.text(value))
            elif isinstance(bound[1], cst.ListComp) and self._is_placeholder(bound[1].elt):
                self.fed = True
                self._growth(tree.text(part), bound[0], part, body, body.index(enqueue_stmt), self._is_placeholder,
                             "tf.placeholder tensors")
                lists.append(tree.text(part))
            else:
                return [], None
        if not lists:
            return [], None
        for single in singles:  # the generator and the dataset read it again: it must be bound once
            bindings = self._targets_binding(single)
            if len(bindings) != 1:
                raise Declined("`%s`, which its enqueue adds to the lists, is bound %d times in its %s: the dataset "
                               "would read it again" % (single, len(bindings), "class" if self.cls else "function"))
        self.growing, self.parts = tree.source(vals), (lists, singles)
        return [], None

    def _is_placeholder(self, node) -> bool:
        return isinstance(node, cst.Call) and self.imports.resolve(node.func) == "tensorflow.placeholder"

    def _vals_spelling(self, vals) -> str:
        """What the enqueue should read, said against what it reads."""
        wanted = "a literal list of tf.placeholder tensors built before it in the same block"
        if isinstance(vals, cst.BinaryOperation):
            return wanted + " (it enqueues a concatenation `%s`, whose parts qmigrate does not add up)" % self.tree.source(vals)
        if vals is not None and _is_ref(vals):
            return wanted + " (`%s` is not bound to such a list there)" % self.tree.source(vals)
        return wanted

    def _growth(self, text, binding, use, body, until, element_ok, what) -> List[cst.BaseStatement]:
        """The `text.append(x)` statements that grow the list `binding` (a statement of `body`)
        binds, all between it and body[until]; every other use of the list (besides `use`, the one
        the queue reads) only reads it: an index, a loop over it, `len()`, `zip()`. Raises Declined,
        naming the use, when the list is changed otherwise or grown where qmigrate cannot follow."""
        tree = self.tree
        start, target = body.index(binding), cstutil.single_assign(binding)[0]
        grown = []
        for ref in _refs(tree, self.region_for(text), text):
            if ref is use or ref is target:
                continue
            append = _method_of(tree, ref, ("append",))
            if append is not None:
                stmt = tree.statement(append)
                top = self._top_index(stmt, body)
                small = cstutil.single_small(stmt)
                loop = tree.in_loop(stmt, tree.function(stmt))
                if loop is not None:  # one element an iteration: how many, qmigrate does not count
                    raise Declined("`%s` is grown by %s, an append in a loop (%s), which qmigrate does not "
                                   "follow" % (text, tree.where(stmt), tree.where(loop)))
                if not (isinstance(small, cst.Expr) and small.value is append and top is not None
                        and start < top < until and tree.function(stmt) is self.ctor_function
                        and len(append.args) == 1 and append.args[0].keyword is None and not append.args[0].star
                        and element_ok(append.args[0].value)):
                    raise Declined("`%s` is grown by %s, which is not an append of %s between its binding and "
                                   "the queue's use of it" % (text, tree.where(stmt), what))
                grown.append(stmt)
                continue
            # Another queue's enqueue of the same placeholders reads them too (a train and an eval
            # queue, each fed by its own thread): each queue is planned on its own.
            if not self._only_read(ref) and not self._enqueued_elsewhere(ref):
                raise Declined("`%s`, the list the queue reads, is also used by %s, which may change it"
                               % (text, tree.where(ref)))
        return grown

    def _top_index(self, stmt, body) -> Optional[int]:
        """The index in `body` of the statement of `body` that holds `stmt` (or is it)."""
        ids = {id(s): i for i, s in enumerate(body)}
        for node in [stmt] + list(self.tree.up(stmt)):
            if id(node) in ids:
                return ids[id(node)]
        return None

    def _enqueued_elsewhere(self, ref) -> bool:
        """Whether `ref` (a list) is an argument of another queue's `.enqueue(...)` (its values) or
        of a TensorFlow call such as another queue's constructor (its dtypes): TensorFlow reads the
        list it is given, and never changes it."""
        parent = self.tree.parent.get(id(ref))
        call = self.tree.parent.get(id(parent)) if isinstance(parent, cst.Arg) else None
        if not isinstance(call, cst.Call) or parent.star or parent.value is not ref:
            return False
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in ("enqueue", "enqueue_many"):
            return True
        return (self.imports.resolve(call.func) or "").startswith("tensorflow.")

    def _only_read(self, ref) -> bool:
        """Whether `ref` (a list) is only read where it stands: indexed (not stored into), looped
        over, or given to len(), zip() or enumerate()."""
        tree = self.tree
        parent = tree.parent.get(id(ref))
        if isinstance(parent, cst.Subscript) and parent.value is ref:
            above = tree.parent.get(id(parent))
            return not isinstance(above, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del, cst.Element,
                                          cst.For, cst.CompFor))
        if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is ref:
            return True
        call = tree.parent.get(id(parent)) if isinstance(parent, cst.Arg) else None
        return (isinstance(call, cst.Call) and isinstance(call.func, cst.Name)
                and call.func.value in ("len", "zip", "enumerate")
                and not parent.keyword and not parent.star)

    def _growing_spec(self, args, body, ctor_index) -> "_Spec":
        """output_types and output_shapes for components collected at run time in `self.growing`:
        the queue's dtypes (a literal, or a list grown before it like the placeholders) and the
        placeholders' own shapes, read when the dataset is built."""
        tree = self.tree
        dtypes = args.get("dtypes")
        if isinstance(dtypes, (cst.List, cst.Tuple)):
            listed = [tree.source(d) for d in _elements(dtypes, "its `dtypes=`")]
            types = "(%s)" % ", ".join(listed) if len(listed) > 1 else "(%s,)" % "".join(listed)  # a tuple, as the shapes
        elif isinstance(dtypes, cst.Name):
            binding = next((s for s in body[:ctor_index] if cstutil.single_assign(s)
                            and tree.text(cstutil.single_assign(s)[0]) == dtypes.value
                            and isinstance(cstutil.single_assign(s)[1], (cst.List, cst.Tuple))), None)
            if binding is None or not isinstance(cstutil.single_assign(binding)[1], cst.List):
                raise Declined("its `dtypes=` (`%s`) is not bound to a literal list before it in the same block"
                               % dtypes.value)
            self._growth(dtypes.value, binding, dtypes, body, ctor_index, lambda node: True, "a dtype")
            types = "tuple(%s)" % dtypes.value
        elif self.parts is not None:  # computed: an enqueue takes exactly the dtypes of what it enqueues
            types = "tuple(placeholder.dtype for placeholder in %s)" % self.growing
        else:
            _elements(dtypes, "its `dtypes=`")  # refused, with how it is spelled
        if not is_none(args.get("shapes")):
            raise Declined("it has `shapes=` while its placeholders are collected at run time in `%s`: qmigrate "
                           "does not match the two" % self.growing)
        if self.kind == _PADDING:
            raise Declined("a PaddingFIFOQueue without shapes")
        return _Spec(types, "tuple(placeholder.shape for placeholder in %s)" % self.growing, False)

    def _shapes(self, args, components, many) -> List[str]:
        """from_generator's output_shapes: the queue's shapes (with the batch dimension enqueue_many
        feeds), else each placeholder's shape, else unknown."""
        if not is_none(args.get("shapes")):
            shapes = _elements(args["shapes"], "its `shapes=`")
            if len(shapes) != len(components):
                raise Declined("its `shapes=` does not give one shape per enqueued placeholder")
            out = []
            for shape in shapes:
                if not many:
                    out.append(self.tree.source(shape))
                elif isinstance(shape, (cst.List, cst.Tuple)) and not any(
                        isinstance(e, cst.StarredElement) for e in shape.elements):
                    out.append("[%s]" % ", ".join(["None"] + [self.tree.source(e.value) for e in shape.elements]))
                else:  # a computed shape (`x.shape[1:]`): enqueue_many feeds it with a batch dimension first
                    out.append("%s.TensorShape([None]).concatenate(%s)" % (self.tf, self.tree.source(shape)))
            return out
        if self.kind == _PADDING:
            raise Declined("a PaddingFIFOQueue without shapes")
        out = []
        for _, placeholder in components:
            shape = bind_arguments(placeholder, _PLACEHOLDER, "tf.placeholder").get("shape")
            out.append("None" if is_none(shape) else self.tree.source(shape))
        return out

    # -- the producer -----------------------------------------------------------------------------
    def _enqueue_runs(self, enqueue: str, target) -> List[Tuple[cst.Call, Optional[cst.BaseExpression]]]:
        """Every `<s>.run(enqueue, ...)` of the module: directly (the same reference in the queue's
        class or function), or through a parameter of the function a thread runs. (call, feed_dict)."""
        tree = self.tree
        runs = []
        for ref in _refs(tree, self.region_for(enqueue), enqueue):
            if ref is target:
                continue
            runs += self._run_of(ref)
            thread = self._thread_arg(ref)
            if thread is not None:
                function, param = thread
                for inner in _refs(tree, function.body, param):
                    runs += self._run_of(inner)
        return runs

    def _run_of(self, ref) -> List[Tuple[cst.Call, Optional[cst.BaseExpression]]]:
        arg = self.tree.parent.get(id(ref))
        call = self.tree.parent.get(id(arg)) if isinstance(arg, cst.Arg) else None
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "run"
                and call.args and call.args[0] is arg and arg.keyword is None):
            return []
        feed = next((a.value for a in call.args[1:] if a.keyword is not None and a.keyword.value == "feed_dict"), None)
        if feed is None and len(call.args) > 1 and call.args[1].keyword is None:
            feed = call.args[1].value
        return [(call, feed)]

    def _thread_arg(self, ref) -> Optional[Tuple[cst.FunctionDef, str]]:
        """(function, parameter) when `ref` is passed in a threading.Thread's `args=` to a function
        of this module."""
        tree = self.tree
        for ancestor in tree.up(ref):
            if isinstance(ancestor, cst.Call) and self.imports.resolve(ancestor.func) == "threading.Thread":
                bound = bind_arguments(ancestor, _THREAD, "threading.Thread")
                elements = [e.value for e in getattr(bound.get("args"), "elements", ())]
                function = self._target_function(bound.get("target"), ancestor)
                positions = [i for i, e in enumerate(elements) if e is ref]
                params = _plain_params(function) if function is not None else None
                if not positions or params is None:
                    return None
                if self.cls is not None and self.tree.class_of(function) is self.cls:
                    params = params[1:]  # a method: `self` is not passed
                return (function, params[positions[0]]) if positions[0] < len(params) else None
            if isinstance(ancestor, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                return None
        return None

    def _thread_target(self, call: cst.Call) -> Optional[cst.FunctionDef]:
        try:
            return self._target_function(bind_arguments(call, _THREAD, "threading.Thread").get("target"), call)
        except Declined:
            return None

    def _target_function(self, target, thread: cst.Call) -> Optional[cst.FunctionDef]:
        """The function a Thread's `target=` names: `self.method` of the queue's class (started in
        that class), or a function of this module (at module level, or nested in the function that
        builds the queue)."""
        if target is None:
            return None
        text = self.tree.text(target)
        if text.startswith("self."):
            if self.cls is None or self.tree.class_of(self.tree.function(thread)) is not self.cls:
                return None
            return next((s for s in self.cls.body.body if isinstance(s, cst.FunctionDef)
                         and s.name.value == text[len("self."):]), None)
        if isinstance(target, cst.Name):
            scopes = [self.tree.module] + ([self.ctor_function] if self.ctor_function is not None else [])
            for scope in scopes:
                body = scope.body if isinstance(scope, cst.Module) else scope.body.body
                for stmt in body:
                    if isinstance(stmt, cst.FunctionDef) and stmt.name.value == target.value:
                        return stmt
        return None

    def _producer(self, run_call, feed, components, vals_text, enqueue, plan) -> "_Producer":
        """Check the thread function around the run and plan it as a generator."""
        tree = self.tree
        run_stmt = tree.statement(run_call)
        small = cstutil.single_small(run_stmt)
        if not (isinstance(small, cst.Expr) and small.value is run_call):
            raise Declined("the result of its enqueue run %s is used" % tree.where(run_call))
        inner = tree.function(run_call)
        if inner is None:
            raise Declined("its enqueue op is run outside any function %s" % tree.where(run_call))
        function, via, subclass = self._thread_function(inner, run_call)
        thread = None
        if not subclass:  # a threading.Thread(target=function) runs it: exactly one, started once
            threads = [c for c in cstutil.calls_of(tree.module) if self.imports.resolve(c.func) == "threading.Thread"
                       and self._thread_target(c) is function]
            if len(threads) > 1:
                raise Declined("%d threads run `%s()` (%s): from_generator runs one generator"
                               % (len(threads), function.name.value, ", ".join(tree.where(t) for t in threads)))
            thread = threads[0]
            loop = tree.in_loop(thread, tree.function(thread) or tree.module)
            if loop is not None:
                raise Declined("the thread that runs `%s()` is started in a loop %s: several producers fill one "
                               "queue, and from_generator has one" % (function.name.value, tree.where(loop)))
        for checked in {id(function): function, id(inner): inner}.values():
            if cstutil.nodes_of(checked, (cst.Yield,)):
                raise Declined("`%s()` is already a generator" % checked.name.value)
        producer = _Producer(function, thread, self.cls is not None and tree.class_of(function) is self.cls,
                             subclass)
        bound = bind_arguments(thread, _THREAD, "threading.Thread") if thread is not None else {}
        if set(bound) - {"target", "args", "name", "daemon"}:
            raise Declined("its threading.Thread %s passes `%s=`" % (
                tree.where(thread), sorted(set(bound) - {"target", "args", "name", "daemon"})[0]))
        params = _plain_params(function)
        if params is None:
            raise Declined("`%s()` takes *args, **kwargs or keyword-only parameters" % function.name.value)
        if producer.method:
            params = params[1:]
        passed = _elements(bound["args"], "its Thread's `args=`") if "args" in bound else []
        if len(passed) > len(params):
            raise Declined("its Thread passes more arguments than `%s()` takes" % function.name.value)
        given = dict(zip(params, passed))

        def meaning(node) -> str:
            """What a reference in the thread function stands for, in the queue's scope."""
            text = tree.text(node)
            return tree.text(given[text]) if text in given else text

        # The session: used for this run only.
        session = run_call.func.value
        session_text = tree.text(session)
        for checked in {id(function): function, id(inner): inner}.values():
            for ref in _refs(tree, checked.body, session_text):
                if ref is not session:
                    raise Declined("`%s()` also uses the session %s: the loop does more than feed the queue"
                                   % (checked.name.value, tree.where(ref)))
            for call in cstutil.calls_of(checked.body):
                if call is not run_call and isinstance(call.func, cst.Attribute) and call.func.attr.value == "run":
                    raise Declined("`%s()` also runs %s: the loop does more than feed the queue"
                                   % (checked.name.value, tree.where(call)))
        if meaning(run_call.args[0].value) != enqueue:
            raise Declined("the thread is not given the enqueue op %s" % tree.where(thread or run_call))
        value = self._yielded(feed, inner, run_stmt, components, vals_text, meaning, producer)
        plan.replaced[id(run_stmt)] = ["yield %s" % value]
        if via is not None:  # the thread function's call of the helper that feeds: it yields what the helper yields
            plan.replaced[id(via)] = ["yield from %s" % tree.source(cstutil.statement_value(via))]
        if producer.removed_feed is not None:
            plan.removed.add(id(producer.removed_feed))
        # Parameters that carried the session, the enqueue op, the placeholders or a coordinator go.
        dropped = set()
        for param in params:
            uses = _refs(tree, function.body, param)
            if param == session_text or param == tree.text(run_call.args[0].value) or param in producer.fed_params:
                feeding = {id(run_stmt)} | ({id(producer.removed_feed)} if producer.removed_feed is not None else set())
                other = [u for u in uses if not any(id(a) in feeding for a in tree.up(u))]
                if other:
                    raise Declined("`%s()` also uses `%s`, which feeds the queue, in %s"
                                   % (function.name.value, param, tree.where(other[0])))
                dropped.add(param)
            elif uses and all(_method_of(tree, u, ("should_stop",)) is not None for u in uses):
                dropped.add(param)  # a Coordinator: the generator stops when its consumer does
                for use in uses:
                    self._stop_test(_method_of(tree, use, ("should_stop",)), plan)
            elif param in given:
                producer.kept.append((param, given[param]))
            elif any(p.name.value == param and p.default is None for p in function.params.params):
                raise Declined("`%s()` takes `%s`, which its Thread does not pass" % (function.name.value, param))
        plan.nodes[id(function)] = _drop_params(dropped)
        self._check_only_threaded(function, thread)
        if thread is not None:
            self._remove_thread(thread, producer, plan)
        return producer

    def _check_only_threaded(self, function: cst.FunctionDef, thread: cst.Call) -> None:
        """The thread function becomes a generator with fewer parameters: nothing else may use it."""
        tree = self.tree
        method = self.cls is not None and tree.class_of(function) is self.cls
        name = ("self." if method else "") + function.name.value
        scope = self.cls if method else tree.module
        target = bind_arguments(thread, _THREAD, "threading.Thread").get("target") if thread is not None else None
        for ref in _refs(tree, scope, name):
            if ref is not target:
                raise Declined("`%s()` is also used by %s, which expects the thread function it was"
                               % (function.name.value, tree.where(ref)))

    def _thread_function(self, inner: cst.FunctionDef, run_call: cst.Call):
        """(the function a threading.Thread runs, the statement of it that calls `inner`, or None
        when `inner` is that function). One level of helper is followed: `self.helper()` (or
        `helper()`) called once, as a statement, with no arguments, from the thread's function."""
        tree = self.tree
        if any(self._thread_target(c) is inner for c in cstutil.calls_of(tree.module)
               if self.imports.resolve(c.func) == "threading.Thread"):
            return inner, None, False
        if self._feeder_thread_run(inner):
            return inner, None, True
        name = inner.name.value
        method = self.cls is not None and tree.class_of(inner) is self.cls
        spelled = ("self." if method else "") + name
        calls = [c for c in cstutil.calls_of(self.cls if method else tree.module)
                 if tree.text(c.func) == spelled]
        where = tree.where(run_call)
        if len(calls) != 1:
            raise Declined("`%s()`, which runs its enqueue op %s, is not the target of a threading.Thread in this "
                           "file, nor called once by one (run from the main loop, or from several places)"
                           % (name, where))
        call = calls[0]
        caller = tree.function(call)
        stmt = tree.statement(call)
        small = cstutil.single_small(stmt)
        if caller is not None and caller.name.value == "run" and self._thread_subclass(tree.class_of(caller)) \
                and not self._feeder_thread_run(caller):
            raise Declined("`%s` subclasses threading.Thread: its run() %s calls `%s()`, which runs the enqueue op "
                           "%s, of another class's queue" % (tree.class_of(caller).name.value, tree.where(caller),
                                                             name, where))
        subclass = caller is not None and self._feeder_thread_run(caller)
        if caller is None or not (isinstance(small, cst.Expr) and small.value is call) or call.args or (
                _plain_params(inner) or [None])[int(method):]:
            raise Declined("`%s()`, which runs its enqueue op %s, is not the target of a threading.Thread in this "
                           "file, nor called on its own, without arguments, by one (%s)" % (name, where, tree.where(call)))
        if not subclass and not any(self._thread_target(c) is caller for c in cstutil.calls_of(tree.module)
                                    if self.imports.resolve(c.func) == "threading.Thread"):
            raise Declined("`%s()`, which calls `%s()` that runs its enqueue op %s, is not the target of a "
                           "threading.Thread in this file" % (caller.name.value, name, where))
        return caller, stmt, subclass

    def _feeder_thread_run(self, function: cst.FunctionDef) -> bool:
        """Whether `function` is run() of the queue's own class, a threading.Thread subclass."""
        return (function.name.value == "run" and self.cls is not None and self.tree.class_of(function) is self.cls
                and self._thread_subclass(self.cls))

    def _thread_subclass(self, cls: Optional[cst.ClassDef]) -> bool:
        return cls is not None and any(self.imports.resolve(base.value) == "threading.Thread" for base in cls.bases)

    def _yielded(self, feed, function, run_stmt, components, vals_text, meaning, producer) -> str:
        """The value the generator yields for `feed_dict`: the fed values in component order."""
        tree = self.tree
        if isinstance(feed, cst.Name) and self.parts is not None:
            return self._built_feed(feed, function, run_stmt, meaning, producer)
        if isinstance(feed, cst.Name):  # `feed = {...}` (or dict(zip(...))) just before the run, used only there
            block = list(tree.block(run_stmt).body)
            index = block.index(run_stmt)
            before = cstutil.single_assign(block[index - 1]) if index else None
            if (before is None or tree.text(before[0]) != feed.value
                    or len(_refs(tree, function.body, feed.value)) != 2):
                raise Declined("its feed_dict `%s` is not built right before the run and used only there %s"
                               % (feed.value, tree.where(run_stmt)))
            producer.removed_feed = block[index - 1]
            feed = before[1]
        order = [text for text, _ in components]
        if isinstance(feed, cst.Dict) and self.growing is not None:
            raise Declined("its feed_dict %s is a literal dict, while the placeholders are collected at run time in "
                           "`%s`: qmigrate orders them from %s"
                           % (tree.where(run_stmt), self.growing, "dict(zip(%s, values))" % self.growing
                              if self.parts is None else "a feed_dict built key by key right before the run"))
        if isinstance(feed, cst.Dict):
            fed = {}
            for element in feed.elements:
                if not isinstance(element, cst.DictElement):
                    raise Declined("its feed_dict unpacks a dict with ** %s" % tree.where(run_stmt))
                key = meaning(element.key)
                if key not in order:
                    raise Declined("the loop feeds `%s`, which its enqueue op does not read, in %s"
                                   % (tree.source(element.key), tree.where(run_stmt)))
                fed[key] = tree.source(element.value)
                if isinstance(element.key, cst.Name):
                    producer.fed_params.add(element.key.value)
            missing = [text for text in order if text not in fed]
            if missing:
                raise Declined("the loop does not feed `%s` in %s" % (missing[0], tree.where(run_stmt)))
            values = [fed[text] for text in order]
            return values[0] if len(values) == 1 else ", ".join(values)
        zipped = _dict_of_zip(feed)
        if zipped is not None and vals_text is not None and meaning(zipped[0]) == vals_text:
            if self.growing is not None and tree.text(zipped[0]) != vals_text:
                raise Declined("its feed_dict %s zips `%s`, which stands for `%s`: the generator needs the list "
                               "itself, collected at run time" % (tree.where(run_stmt), tree.source(zipped[0]),
                                                                  vals_text))
            if isinstance(zipped[0], cst.Name):
                producer.fed_params.add(zipped[0].value)
            # zip() stops at the last placeholder: values past it were never fed.
            if self.growing is not None:
                return "tuple(%s)[:len(%s)]" % (tree.source(zipped[1]), self.growing)
            if self._gives_exactly(zipped[1], len(order)):
                return "tuple(%s)" % tree.source(zipped[1])
            return "tuple(%s)[:%d]" % (tree.source(zipped[1]), len(order))
        raise Declined("its feed_dict %s is not a literal dict of the placeholders (nor dict(zip(placeholders, "
                       "values)))" % tree.where(run_stmt))

    def _built_feed(self, feed: cst.Name, function, run_stmt, meaning, producer) -> str:
        """The yield for a feed_dict built key by key right before the run, for placeholders added
        up from lists (self.parts): `feed = {self.y: y}`, then `for x, v in zip(self.xs, values):
        feed[x] = v` (or `enumerate(self.xs)`, or `for x in self.xs`). Its keys must be exactly the
        enqueued placeholders; the statements stay, and the generator yields the fed values in the
        enqueue's order, `tuple(feed[placeholder] for placeholder in <the enqueued lists>)`."""
        tree = self.tree
        lists, singles = self.parts
        block = list(tree.block(run_stmt).body)
        index = block.index(run_stmt)
        loops = []
        while index > 0 and isinstance(block[index - 1], cst.For):
            index -= 1
            loops.insert(0, block[index])
        binding = cstutil.single_assign(block[index - 1]) if index else None
        where = tree.where(run_stmt)
        if binding is None or tree.text(binding[0]) != feed.value or not isinstance(binding[1], cst.Dict) or len(
                _refs(tree, function.body, feed.value)) != 2 + len(loops):
            raise Declined("its feed_dict `%s` is not a dict built right before the run %s (a literal, then loops "
                           "that store one placeholder each) and used only there" % (feed.value, where))
        keys = []
        for element in binding[1].elements:
            if not isinstance(element, cst.DictElement):
                raise Declined("its feed_dict unpacks a dict with ** %s" % where)
            keys.append(meaning(element.key))
        looped = []
        for loop in loops:
            store = cstutil.single_assign(loop.body.body[0]) if len(loop.body.body) == 1 else None
            key = store[0].slice[0].slice.value if store is not None and isinstance(store[0], cst.Subscript) and (
                tree.text(store[0].value) == feed.value and len(store[0].slice) == 1
                and isinstance(store[0].slice[0].slice, cst.Index)) else None
            over = _loop_source(loop, key)
            if over is None or loop.orelse is not None:
                raise Declined("its feed_dict `%s` is filled by %s, which is not `for x in <list>:` (or over "
                               "enumerate() or zip() of it) storing `%s[x]` alone" % (feed.value, tree.where(loop),
                                                                                     feed.value))
            looped.append(meaning(over))
        if Counter(keys) != Counter(singles) or Counter(looped) != Counter(lists):
            raise Declined("its feed_dict `%s` %s does not feed exactly the placeholders its enqueue adds up (`%s`)"
                           % (feed.value, where, self.growing))
        if not producer.method or not all(text.startswith("self.") for text in lists + singles):
            raise Declined("the generator would read `%s` again, and only `self.` attributes read from a method of "
                           "the class are sure to mean the same" % self.growing)
        return "tuple(%s[placeholder] for placeholder in %s)" % (feed.value, self.growing)

    def _gives_exactly(self, values, count: int) -> bool:
        """Whether `values` is a literal tuple (or list) of `count` items, or a call of a function of
        this module that returns only such (so zip() with `count` placeholders takes it whole)."""
        def literal(node) -> bool:
            return isinstance(node, (cst.Tuple, cst.List)) and len(node.elements) == count and not any(
                isinstance(e, cst.StarredElement) for e in node.elements)
        if literal(values):
            return True
        if not (isinstance(values, cst.Call) and isinstance(values.func, cst.Name)):
            return False
        defined = [s for s in self.tree.module.body if isinstance(s, cst.FunctionDef) and s.name.value == values.func.value]
        if len(defined) != 1 or cstutil.nodes_of(defined[0].body, (cst.Yield, cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False  # a generator, or returns that may belong to a nested function
        returns = cstutil.nodes_of(defined[0].body, (cst.Return,))
        return bool(returns) and all(literal(r.value) for r in returns)

    def _stop_test(self, call: cst.Call, plan: Plan) -> None:
        """`while not coord.should_stop():` loops while the consumer reads: `while True:`."""
        parent = self.tree.parent.get(id(call))
        if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
            plan.nodes[id(parent)] = lambda node: cst.Name("True")
        else:
            plan.nodes[id(call)] = lambda node: cst.Name("False")

    def _check_unchanged(self, args, between) -> None:
        """The constructor's arguments (capacity, dtypes, shapes, ...) are read again where the
        dataset is built: nothing between the two may bind a name (or `self.` attribute) they read."""
        tree = self.tree
        read = set()
        for value in args.values():
            read |= set(cstutil.name_uses(value).loads)
            read |= {tree.text(n) for n in cstutil.nodes_of(value, (cst.Attribute,)) if _is_ref(n)}
        for stmt in between:
            stored = _stored_names(stmt) if not isinstance(stmt, cst.BaseCompoundStatement) else set()
            for node in cstutil.nodes_of(stmt, (cst.AssignTarget, cst.AugAssign, cst.For, cst.WithItem)):
                target = getattr(node, "target", None) or getattr(getattr(node, "asname", None), "name", None)
                if target is not None:
                    stored |= {tree.text(t) for t in _targets(target)}
            changed = sorted(stored & read)
            if changed:
                raise Declined("`%s`, which its constructor reads, is bound again in %s, before the dequeue where "
                               "the dataset is built" % (changed[0], tree.where(stmt)))

    def _check_available(self, producer: "_Producer", body, dequeue_index: int) -> None:
        """What the thread was given must mean the same where the dataset is built (at the dequeue):
        module names, `self`, or names of the function that builds the queue and starts the thread
        bound once, as a parameter or before the dequeue in its block."""
        tree = self.tree
        allowed = set()
        for stmt in tree.module.body:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                allowed.add(stmt.name.value)
            else:
                allowed |= cstutil.name_uses(stmt).stores
        if self.cls is not None:
            allowed.add("self")
        function = self.ctor_function
        if function is not None and producer.thread is not None and tree.function(producer.thread) is function:
            stores = Counter()
            for node in cstutil.nodes_of(function.body, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                if not isinstance(node, cst.FunctionDef):
                    stores.update(_stored_names(node))
            params = set(_plain_params(function) or ())
            before = set()
            for stmt in body[:dequeue_index]:
                before |= cstutil.name_uses(stmt).stores if isinstance(stmt, cst.SimpleStatementLine) else set()
            allowed |= {n for n in params if not stores[n]} | {n for n in before if stores[n] == 1}
        for _, arg in producer.kept:
            local = set(cstutil.name_uses(arg).loads) - allowed
            if local:
                raise Declined("its thread %s is given `%s`, which qmigrate cannot prove means the same where the "
                               "queue is dequeued (`%s` is bound there more than once, or after the dequeue)"
                               % (tree.where(producer.thread), tree.source(arg), sorted(local)[0]))

    def _check_defined(self, producer: "_Producer", body, dequeue_index: int, plan: Plan, single: bool) -> None:
        """A thread function nested in the function that builds the queue must exist at the dequeue:
        one defined after it moves up to just before the dataset. That changes nothing else when
        defining it evaluates nothing (no decorators, literal defaults) and its name is not used
        in between; its body runs only when the dataset is read."""
        function = producer.function
        if function not in body or body.index(function) < dequeue_index:
            return
        name = function.name.value
        literal = (cst.Integer, cst.Float, cst.SimpleString)
        defaults_plain = all(p.default is None or isinstance(p.default, literal) or (
            isinstance(p.default, cst.Name) and p.default.value in ("None", "True", "False"))
            for p in function.params.params)
        between = body[dequeue_index + 1:body.index(function)]
        if not single:
            raise Declined("`%s()` is defined after the dequeues in %s, where the datasets need it"
                           % (name, self.tree.where(body[dequeue_index])))
        if function.decorators or not defaults_plain or any(name in cstutil.name_uses(s).loads for s in between):
            raise Declined("`%s()` is defined after the dequeue, where the dataset needs it, and cannot move up "
                           "(decorators, computed defaults, or its name used in between)" % name)
        plan.moved[id(body[dequeue_index])] = id(function)

    def _remove_thread(self, thread: cst.Call, producer: "_Producer", plan: Plan) -> None:
        """The statements that make, start and keep the thread go with it."""
        tree = self.tree
        stmt = tree.statement(thread)
        small = cstutil.single_small(stmt)
        assign = cstutil.single_assign(stmt)
        if (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
                and _method_of(tree, thread, ("start",)) is small.value):
            plan.removed.add(id(stmt))
            return
        if assign is None or assign[1] is not thread or not _is_ref(assign[0]):
            raise Declined("its threading.Thread %s is not assigned to a name or started at once" % tree.where(thread))
        name = tree.text(assign[0])
        scope = self.cls if name.startswith("self.") and self.cls is not None else (tree.function(stmt) or tree.module)
        plan.removed.add(id(stmt))
        rebound = self._rebound_after(stmt, name)
        for ref in _refs(tree, scope, name):
            if ref is assign[0]:
                continue
            use = tree.statement(ref)
            if any(id(node) in rebound for node in [use] + list(tree.up(use))):
                continue  # the name bound again later in the block: another thread's (a second feeder's)
            small = cstutil.single_small(use)
            value = cstutil.statement_value(use)
            if (isinstance(small, cst.Expr) and isinstance(value, cst.Call)
                    and (_method_of(tree, ref, _THREAD_METHODS) is value
                         or (tree.text(value.func).endswith(".append") and len(value.args) == 1
                             and value.args[0].value is ref))):
                plan.removed.add(id(use))
            elif (isinstance(small, cst.Assign) and len(small.targets) == 1
                  and tree.text(small.targets[0].target) == name + ".daemon"):
                plan.removed.add(id(use))
            else:
                raise Declined("its thread `%s` is also used by %s, which would lose its thread"
                               % (name, tree.where(use)))

    def _rebound_after(self, stmt, name: str) -> Set[int]:
        """The statements of `stmt`'s block that see another binding of `name` (`thread =
        threading.Thread(...)` twice in a row in a function's body, a thread per queue): from the
        next statement that binds it again to the end, and, where an earlier statement binds it,
        those before `stmt` (a function's own body runs once, in order). Empty if neither."""
        block = self.tree.parent.get(id(stmt))
        if not (isinstance(block, cst.IndentedBlock) and isinstance(self.tree.parent.get(id(block)), cst.FunctionDef)):
            return set()
        siblings = list(block.body)
        position = next(i for i, sibling in enumerate(siblings) if sibling is stmt)
        binds = [index for index, sibling in enumerate(siblings) if index != position
                 and cstutil.single_assign(sibling) is not None
                 and self.tree.text(cstutil.single_assign(sibling)[0]) == name]
        others = set()
        if any(index < position for index in binds):
            others |= {id(sibling) for sibling in siblings[:position]}
        later = [index for index in binds if index > position]
        if later:
            others |= {id(sibling) for sibling in siblings[later[0]:]}
        return others

    # -- the consumer -----------------------------------------------------------------------------
    def _dequeue(self, refs, body, enqueue_index) -> Tuple[List[Tuple[cst.BaseStatement, cst.Call]], cst.BaseStatement]:
        """[(statement, dequeue call)] and the statement of `body` that holds them: one dequeue in
        the block that builds the queue, or one in each arm of an if/elif/else there (one runs)."""
        tree = self.tree
        dequeues = [c for r in refs for c in [_method_of(tree, r, _DEQUEUES)] if c]
        if not dequeues:
            raise Declined("it is not dequeued in this file")
        anchor = tree.statement(dequeues[0])
        if len(dequeues) > 1:
            anchor = self._arms_of_one_if([tree.statement(d) for d in dequeues])
            if anchor is None:
                raise Declined("it is dequeued in %d places (%s), not one per arm of an if"
                               % (len(dequeues), ", ".join(tree.where(d) for d in dequeues)))
        if anchor not in body or body.index(anchor) <= enqueue_index:
            raise Declined(_AWAY % tree.where(dequeues[0]))
        out = []
        for call in dequeues:
            stmt = tree.statement(call)
            if cstutil.statement_value(stmt) is not call:
                raise Declined("its dequeue %s is not assigned or returned as it is" % tree.where(call))
            small = cstutil.single_small(stmt)
            if isinstance(small, cst.Assign) and not all(_is_ref(t) for t in _targets(small.targets[0].target)):
                raise Declined("its dequeue %s is not assigned to names" % tree.where(call))
            out.append((stmt, call))
        return out, anchor

    def _arms_of_one_if(self, statements) -> Optional[cst.If]:
        """The if statement whose arms (if, elif, else) each hold one of `statements` directly."""
        tree = self.tree
        tops, arms = set(), set()
        top = None
        for stmt in statements:
            arm = tree.block(stmt)
            owner = tree.parent.get(id(arm))
            if isinstance(owner, cst.Else):
                owner = tree.parent.get(id(owner))
            if not isinstance(owner, cst.If) or not isinstance(arm, cst.IndentedBlock):
                return None
            while isinstance(tree.parent.get(id(owner)), cst.If) and tree.parent[id(owner)].orelse is owner:
                owner = tree.parent[id(owner)]  # an elif: up to its if
            arms.add(id(arm))
            tops.add(id(owner))
            top = owner
        return top if len(tops) == 1 and len(arms) == len(statements) else None

    def _other_uses(self, refs, enqueue_ref, dequeue_calls, plan) -> None:
        """The queue's close goes; anything else it is used for has no dataset counterpart."""
        tree = self.tree
        for ref in refs:
            if ref is enqueue_ref or any(_method_of(tree, ref, _DEQUEUES) is call for call in dequeue_calls):
                continue
            close = _method_of(tree, ref, ("close",))
            stmt = tree.statement(ref)
            small = cstutil.single_small(stmt)
            value = small.value if isinstance(small, cst.Expr) else None
            if close is not None and (value is close or (
                    isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                    and value.func.attr.value == "run" and len(value.args) == 1 and value.args[0].value is close)):
                plan.removed.add(id(stmt))
                continue
            raise Declined("`%s` is also used by %s, which a dataset has no counterpart for"
                           % (self.queue, tree.where(ref)))

    def _drop_placeholders(self, components, vals_text, body, plan, producer) -> None:
        """Placeholders that only fed the queue go; those read elsewhere stay (nothing feeds them now)."""
        tree = self.tree
        if self.growing is not None:
            return  # the generator reads the list (its length), and so does output_shapes
        texts = [vals_text] if vals_text is not None else [text for text, _ in components]
        for text in texts:
            stmt = next(s for s in body if cstutil.single_assign(s) and tree.text(cstutil.single_assign(s)[0]) == text)
            feeding = {id(stmt)} | plan.removed | set(plan.replaced)
            others = [r for r in _refs(tree, self.region_for(text), text)
                      if id(tree.statement(r)) not in feeding]
            if not others:
                plan.removed.add(id(stmt))

    def _dataset(self, stmt, call, args, spec, many, producer, alone: bool) -> List[str]:
        """The statements that replace the dequeue: a dataset over the generator, batched as the
        dequeue did, and its next element; for the one `dequeue()` of the queue that a batching
        follows, the per-record code and that batching as its stages (fed_batching)."""
        tree, tf, target = self.tree, self.tf, self.target
        scope = tree.function(stmt) or tree.module
        # The name another queue of the same scope took already (two queues fed from one class) is not free.
        given = self.tree.datasets_given.setdefault(id(scope), {})
        others = {name for queue, name in given.items() if queue != id(self.call)}
        taken = cstutil.name_uses(scope).stores | set(cstutil.name_uses(scope).loads) | others
        ds = next(n for n in ("dataset", "fed_dataset", "python_dataset") if n not in taken)
        given[id(self.call)] = ds
        method = call.func.attr.value
        bound = bind_arguments(call, ("n", "name") if method != "dequeue" else ("name",), "its " + method)
        if method != "dequeue" and "n" not in bound:
            raise Declined("its %s has no count" % method)
        generator = producer.reference(tree)
        if producer.kept:
            generator = "lambda: %s(%s)" % (generator, ", ".join(tree.source(arg) for _, arg in producer.kept))
        one = spec.one
        small = cstutil.single_small(stmt)
        unpacked = isinstance(small, cst.Assign) and isinstance(
            small.targets[0].target, (cst.Tuple, cst.List)) and len(small.targets[0].target.elements) > 1
        # A literal list of two placeholders or more, grown by appends, dequeues a list in any run.
        several = isinstance(small, cst.Assign) and self.growing_least > 1
        if self.growing is not None and not (unpacked or several):
            # A queue of one component dequeues a tensor, of several a list; from_generator gives a tuple.
            raise Declined("its dequeue %s is not unpacked into names, and its components, collected at run time "
                           "in `%s`, may be one (a tensor) or several (a list)" % (tree.where(call), self.growing))
        out = ["%s = %s.data.Dataset.from_generator(%s, output_types=%s, output_shapes=%s)" % (
            ds, tf, generator, spec.types, spec.shapes)]
        if many:
            out.append("%s = %s.%s" % (ds, ds, synth._unbatch(tf, target)))
        out += self._buffering(ds)
        if method != "dequeue":
            batching = Batching(batch_size=tree.source(bound["n"]), allow_smaller_final_batch=method == "dequeue_up_to",
                                dynamic_pad=self.kind == _PADDING)
            out.append("%s = %s.%s" % (ds, ds, synth._batch(ds, batching, tf, target)))
        if method == "dequeue" and alone:
            self.tail = fed_batching.tail(tree, tree.block(stmt).body, stmt, self.imports.resolve, ds, tf, target,
                                          one)
            if self.tail is not None and self.tail.refused is None:
                return out + self.tail.lines
        element = "%s.get_next()" % synth._one_shot(ds, tf, target)
        if isinstance(small, cst.Return):
            out.append("return %s" % element)
            return out
        target_node = small.targets[0].target
        if not one and not isinstance(target_node, (cst.Tuple, cst.List)):
            element = "list(%s)" % element  # a queue's dequeue gave a list of its components
        out.append("%s = %s" % (tree.source(target_node), element))
        return out

    def _buffering(self, ds: str) -> List[str]:
        """The queue's buffer: `prefetch(capacity)` (the generator runs ahead of the consumer by as
        many elements as the queue held) and `shuffle` for a RandomShuffleQueue; for a queue per arm
        of an if, an if with the same tests choosing each arm's buffer (common lines before it)."""
        from qmigrate.rules.batching import shuffle_buffer
        tree = self.tree
        per_arm = []
        for _, kind, args in self.buffers:
            lines = ["%s = %s.prefetch(%s)" % (ds, ds, tree.source(args["capacity"]))]
            if kind == _SHUFFLE:
                seed = args.get("seed")
                lines.append("%s = %s.shuffle(%s%s)" % (ds, ds, shuffle_buffer(args, tree.source),
                                                        "" if is_none(seed) else ", seed=%s" % tree.source(seed)))
            per_arm.append(lines)
        common = []
        while all(lines and lines[0] == per_arm[0][0] for lines in per_arm):
            common.append(per_arm[0][0])
            per_arm = [lines[1:] for lines in per_arm]
        if not any(per_arm):
            return common
        arms = list(zip(self.buffers, per_arm))
        while not arms[-1][1]:
            arms.pop()  # a last arm with nothing to add (its test calls nothing: see _arm_buffers)
        chain = []
        for index, ((test, _, _), lines) in enumerate(arms):
            head = "else:" if test is None else "%s %s:" % ("if" if index == 0 else "elif", tree.source(test))
            chain.append(head + "".join("\n    " + line for line in lines or ["pass"]))
        return common + ["\n".join(chain)]

    def _arm_buffers(self, first_args) -> List[Tuple[Optional[cst.BaseExpression], str, dict]]:
        """Each arm's (test, queue kind, constructor arguments); the arms' queues must hold the same
        elements (dtypes, shapes, padding) and differ only in how they buffer (capacity, shuffling)."""
        tree = self.tree
        out = []
        for test, call in zip(self.arms.tests, self.arms.calls):
            kind = self.imports.resolve(call.func)
            args = first_args if call is self.call else bind_arguments(call, _SIGNATURES[kind], "its constructor")
            where = tree.where(call)
            if not is_none(args.get("shared_name")) or not is_none(args.get("names")):
                raise Declined("its queue %s sets `shared_name=` or `names=`" % where)
            for key in ("dtypes", "shapes"):
                if (tree.text(args[key]) if not is_none(args.get(key)) else None) != (
                        tree.text(first_args[key]) if not is_none(first_args.get(key)) else None):
                    raise Declined("the queue per arm of %s %s has other `%s=` than %s: qmigrate builds one dataset "
                                   "for queues that hold the same elements" % (
                                       tree.where(self.arms.statement), where, key, tree.where(self.call)))
            if (kind == _PADDING) != (self.kind == _PADDING):
                raise Declined("one arm of %s builds a PaddingFIFOQueue and another not (%s): their batches differ"
                               % (tree.where(self.arms.statement), where))
            if test is not None and (cstutil.calls_of(test) or cstutil.nodes_of(test, (cst.Lambda, cst.Yield))):
                raise Declined("the test of %s calls something, and the dataset would evaluate it again"
                               % tree.where(self.arms.statement))
            out.append((test, kind, args))
        return out

    def _detail(self, producer: "_Producer", args) -> str:
        parts = ["`%s()` becomes the generator of Dataset.from_generator: it runs inside TensorFlow's py_func on "
                 "the input pipeline's thread, holding the GIL, instead of in its own threading.Thread; each new "
                 "iterator runs it from the start; the dataset holds a Python function, so its graph cannot be "
                 "serialised (GraphDef, SavedModel) or run in another process; a generator that ends ends the "
                 "input with OutOfRangeError where the queue waited" % producer.name]
        if producer.subclass:
            parts.append("`%s` stays a threading.Thread for its callers, but its run() is now that generator: "
                         "start() feeds nothing" % self.cls.name.value)
        methods = {stmt.name.value: stmt for stmt in self.cls.body.body if isinstance(stmt, cst.FunctionDef)} \
            if self.cls is not None and isinstance(self.cls.body, cst.IndentedBlock) else {}
        reads = python_reads.said(python_reads.first_read(producer.function, self.imports.resolve, methods,
                                                          self.tree.line_of))
        if reads:
            parts.append(reads)
        for _, kind, arm_args in self.buffers:
            keep = arm_args.get("min_after_dequeue")
            if kind == _SHUFFLE and not (isinstance(keep, cst.Integer) and keep.evaluated_value == 0):
                parts.append("the last elements the RandomShuffleQueue kept back (min_after_dequeue) now come out")
                break
        if self.arms is not None:
            parts.append("the queue built in each arm of %s becomes the buffering of one dataset, chosen by the "
                         "same test where the dequeue is" % self.tree.where(self.arms.statement))
        return "; ".join(parts)


_AWAY = ("it is dequeued in %s, away from the block that builds it: each call there would build its own dataset and "
         "run its own generator; qmigrate rewrites a dequeue in that block")


@dataclass(frozen=True)
class _Arms:
    """A queue per arm of an if: the if, each arm's test (None for the else) and constructor."""

    statement: cst.If
    tests: List[Optional[cst.BaseExpression]]
    calls: List[cst.Call]


@dataclass(frozen=True)
class _Spec:
    """from_generator's output_types and output_shapes (source), and whether an element is one tensor."""

    types: str
    shapes: str
    one: bool


@dataclass
class _Producer:
    function: cst.FunctionDef
    thread: Optional[cst.Call]  # None: the function is run() of the feeder, a threading.Thread subclass
    method: bool
    subclass: bool = False
    kept: List[Tuple[str, cst.BaseExpression]] = field(default_factory=list)
    fed_params: Set[str] = field(default_factory=set)
    removed_feed: Optional[cst.BaseStatement] = None

    @property
    def name(self) -> str:
        return self.function.name.value

    def reference(self, tree: _Tree) -> str:
        return ("self." if self.method else "") + self.name


def _is_ref(node) -> bool:
    """`x` or `self.x`."""
    return isinstance(node, cst.Name) or (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)
                                          and node.value.value == "self")


def _targets(node) -> List[cst.BaseExpression]:
    return [e.value for e in node.elements] if isinstance(node, (cst.Tuple, cst.List)) else [node]


def _stored_names(stmt) -> Set[str]:
    """Names a simple statement binds (compound statements: their header's targets)."""
    if isinstance(stmt, cst.SimpleStatementLine):
        return cstutil.name_uses(stmt).stores
    if isinstance(stmt, cst.For):
        return cstutil.name_uses(cst.Assign([cst.AssignTarget(stmt.target)], cst.Name("None"))).stores
    if isinstance(stmt, cst.With):
        return {n for item in stmt.items if item.asname is not None
                for n in cstutil.name_uses(cst.Assign([cst.AssignTarget(item.asname.name)], cst.Name("None"))).stores}
    return set()


def _plain_params(function: cst.FunctionDef) -> Optional[List[str]]:
    params = function.params
    if params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or params.star_kwarg or params.kwonly_params \
            or params.posonly_params:
        return None
    return [p.name.value for p in params.params]


def _dict_of_zip(feed) -> Optional[Tuple[cst.BaseExpression, cst.BaseExpression]]:
    """(keys, values) of `dict(zip(keys, values))`."""
    if (isinstance(feed, cst.Call) and isinstance(feed.func, cst.Name) and feed.func.value == "dict"
            and len(feed.args) == 1 and isinstance(feed.args[0].value, cst.Call)):
        inner = feed.args[0].value
        if isinstance(inner.func, cst.Name) and inner.func.value == "zip" and len(inner.args) == 2 and not any(
                a.keyword or a.star for a in inner.args):
            return inner.args[0].value, inner.args[1].value
    return None


def _loop_source(loop: cst.For, key) -> Optional[cst.BaseExpression]:
    """The list `for key in L`, `for _, key in enumerate(L)` or `for key, ... in zip(L, ...)` walks,
    with `key` the loop's own name; else None."""
    if not isinstance(key, cst.Name):
        return None
    target, over = loop.target, loop.iter
    if isinstance(target, cst.Name):
        return over if target.value == key.value else None
    if not (isinstance(target, cst.Tuple) and isinstance(over, cst.Call) and isinstance(over.func, cst.Name)
            and over.args and not any(a.keyword or a.star for a in over.args)):
        return None
    names = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
    if over.func.value == "enumerate" and len(over.args) == 1 and names[1:] == [key.value] and len(names) == 2:
        return over.args[0].value
    if over.func.value == "zip" and len(names) == len(over.args) and names[0] == key.value \
            and names.count(key.value) == 1:
        return over.args[0].value
    return None


def _drop_params(dropped: Set[str]) -> Callable[[cst.CSTNode], cst.CSTNode]:
    def rewrite(function: cst.FunctionDef) -> cst.FunctionDef:
        kept = [p for p in function.params.params if p.name.value not in dropped]
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return function.with_changes(params=function.params.with_changes(params=kept))
    return rewrite


def apply(module: cst.Module, plans: List[Plan]) -> cst.Module:
    """The module with every plan's edits made."""
    removed, replaced, nodes, moved, before, mapped = set(), {}, {}, {}, {}, set()
    for plan in plans:
        mapped |= plan.mapped
        removed |= plan.removed
        replaced.update(plan.replaced)
        nodes.update(plan.nodes)
        moved.update(plan.moved)
        before.update(plan.before)
    return module.visit(_Apply(removed, replaced, nodes, moved, module.config_for_parsing, before, mapped))




class _Apply(cst.CSTTransformer):
    """Edits by original node; statements are removed and replaced by their block, so the comments
    of a removed statement (those not about queues) move to the next statement that stays."""

    def __init__(self, removed, replaced, nodes, moved, config, before, mapped=frozenset()):
        self.removed, self.replaced, self.nodes, self.config = removed, replaced, nodes, config
        self.mapped = mapped  # removed into a map function, which keeps their comments
        self.moved, self.before = moved, before
        self.moved_away = set(moved.values())

    def on_leave(self, original_node, updated_node):
        if id(original_node) in self.nodes:
            updated_node = self.nodes[id(original_node)](updated_node)
        if isinstance(original_node, (cst.IndentedBlock, cst.Module)):
            updated_node = self._block(original_node, updated_node)
        return updated_node

    def _block(self, original, updated):
        body, pending, blank = [], [], False
        updated_of = {id(old): new for old, new in zip(original.body, updated.body)}
        for old, new in zip(original.body, updated.body):
            if id(old) in self.moved_away:
                continue
            if id(old) in self.removed:
                if id(old) in self.mapped:
                    continue
                pending += wording.moved_comments(old)
                # A blank line that set the removed statements apart sets apart what follows them.
                blank = blank or any(line.comment is None for line in old.leading_lines)
                continue
            if id(old) in self.replaced:
                statements = [cstutil.parse_stage(text + "\n", self.config) for text in self.replaced[id(old)]]
                new_lines = list(new.leading_lines)
                if isinstance(statements[0], cst.FunctionDef) and not any(line.comment is None for line in new_lines):
                    new_lines = [cst.EmptyLine(indent=False)] + new_lines  # a def set apart, as written by hand
                if id(old) in self.moved:  # the generator, moved up to where the dataset is built
                    statements[0] = statements[0].with_changes(leading_lines=[cst.EmptyLine(indent=False)])
                    generator = updated_of[self.moved[id(old)]]
                    if not any(line.comment is None for line in new_lines):
                        new_lines = [cst.EmptyLine(indent=False)] + new_lines
                    statements.insert(0, generator)
            else:
                statements, new_lines = [new], list(new.leading_lines)
                if _emptied_finally(old, new):  # `try: ... finally: pass` once its stop lines went: the try goes
                    statements = list(new.body.body)
                    new_lines += list(statements[0].leading_lines)
            if id(old) in self.before:  # its comments go before what comes first; a blank line still sets it apart
                apart = [cst.EmptyLine(indent=False)] if any(line.comment is None for line in new_lines) else []
                statements = [cstutil.parse_stage(text + "\n", self.config) for text in self.before[id(old)]] + [
                    statements[0].with_changes(leading_lines=apart)] + statements[1:]
            if pending or blank:
                kept_blanks = 2 if isinstance(original, cst.Module) else 1  # top-level statements: two, as they had
                blanks = [line for line in new_lines if line.comment is None][:kept_blanks] or (
                    [cst.EmptyLine(indent=False)] if blank and body else [])
                new_lines = blanks + pending + [line for line in new_lines if line.comment is not None]
                pending, blank = [], False
            statements[0] = statements[0].with_changes(leading_lines=new_lines)
            body += statements
        if not body and isinstance(updated, cst.IndentedBlock):
            body = [cst.SimpleStatementLine([cst.Pass()])]
        return updated.with_changes(body=body)


def _emptied_finally(old: cst.CSTNode, new: cst.CSTNode) -> bool:
    """Whether `new` is a `try:`/`finally:` (no except, no else) whose finally block the edits
    emptied (now only `pass`, which it was not): it then guards nothing."""
    def only_pass(block) -> bool:
        return isinstance(block, cst.IndentedBlock) and all(
            isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(small, cst.Pass) for small in stmt.body)
            for stmt in block.body)

    return (isinstance(new, cst.Try) and isinstance(old, cst.Try) and not new.handlers and new.orelse is None
            and new.finalbody is not None and only_pass(new.finalbody.body) and not only_pass(old.finalbody.body)
            and isinstance(new.body, cst.IndentedBlock))


REFUSED = "it is fed from Python (placeholders, feed_dict, a thread), but "
_UNSAFE_ONLY = ("it is fed from a Python thread: its rewrite into Dataset.from_generator changes threading "
                "(QM308), so it is applied only with --unsafe")
_ANOTHER = ("it is fed from a Python thread, and another pipeline of this file is rewritten in this run: run "
            "qmigrate again to rewrite this one")
_TODO = ("turn the thread's loop into a generator (yield the fed values), build "
         "tf.data.Dataset.from_generator(gen, output_types, output_shapes) batched as the dequeue did, use its "
         "iterator's get_next() for the dequeue, and remove the thread")


_KEPT_BATCHER = ("it batches the records of a dataset made from a Python generator (QM308), read one at a time "
                 "from its iterator, but ")
_KEPT_TODO = ("move the per-record code into `dataset.map(parse)` and batch the dataset (shuffle(min_after_dequeue) "
              "for a shuffle_batch), then remove the queue runners")


def finish(analysis, found: List[object], options, rule, changed_by_others: bool) -> bool:
    """Say what became of each queue `find` returned, on `analysis` (an engine.FileAnalysis), and
    make the plans' edits on `analysis.new_module` when unsafe fixes are asked for and no other
    rewrite of this run changed the module (its nodes are the original ones). Returns whether
    anything was rewritten."""
    if not options.wants(rule.code):
        return False
    plans = []
    for item in found:
        call = item.queue_call
        if isinstance(item, Refusal):
            analysis.reasons[id(call)] = REFUSED + item.reason
            analysis.todo[id(call)] = _TODO
            continue
        apply_it = options.unsafe and not changed_by_others
        analysis.add_finding(rule, call, apply_it, item.detail)
        if apply_it:
            plans.append(item)
            analysis.fixed_calls.update(id(c) for c in [call] + item.also + item.batchers + item.gone)
            analysis.changed_helpers += item.changed
            for batcher in item.batchers:  # the engine's reason (its records came from a queue) no longer holds
                analysis.reasons.pop(id(batcher), None)
                analysis.todo.pop(id(batcher), None)
            for batcher, why in item.kept_batchers.items():
                analysis.reasons[batcher] = _KEPT_BATCHER + why
                analysis.todo[batcher] = _KEPT_TODO
            analysis.pipelines += 1
        else:
            for each in [call] + item.also:
                analysis.reasons[id(each)] = _ANOTHER if options.unsafe else _UNSAFE_ONLY
                analysis.todo[id(each)] = ("run `qmigrate --unsafe`" if not options.unsafe else "run qmigrate again")
    if plans:
        analysis.new_module = _drop_unused_threading(analysis.module, apply(analysis.module, plans))
    return bool(plans)


def _drop_unused_threading(old: cst.Module, new: cst.Module) -> cst.Module:
    """`import threading` goes when the thread was its only use."""
    if "threading" not in cstutil.name_uses(old).loads or "threading" in cstutil.name_uses(new).loads:
        return new
    body, inherited = [], None
    for stmt in new.body:
        small = cstutil.single_small(stmt)
        if (isinstance(small, cst.Import) and len(small.names) == 1 and small.names[0].asname is None
                and new.code_for_node(small.names[0].name) == "threading"):
            if not body:
                inherited = stmt.leading_lines  # the next statement opens the file in its place
            continue
        if inherited is not None:
            stmt, inherited = stmt.with_changes(leading_lines=inherited), None
        body.append(stmt)
    return new.with_changes(body=body)
