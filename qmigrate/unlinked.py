"""Why a producer, reader or batching call that no pipeline reached stays: where its chain leaves
its function, named with the construct and its line.

The recogniser follows a chain inside a function and the helpers it links; a call it never
reached has no reason of its own. This looks one step along the data in that call's function:
where the queue or the records go, or where the batched tensors come from. It only explains;
nothing here decides what is rewritten.
"""
import builtins
import re
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

import libcst as cst

from qmigrate import batch_down, cstutil, in_memory_rows, lookup_tables
from qmigrate.names import dotted

_READS = ("read", "read_up_to")

# How a reason says that a function returns its records to callers the run did not link to it;
# after the run, `uncalled` says so more precisely when no module of the run calls the function.
_NOT_LINKED = "which qmigrate does not link to them"
RETURNED_TO = re.compile(r"are returned \(line \d+\) to the callers of ([\w.]+)\(\), " + re.escape(_NOT_LINKED))


def returned_to(message: str) -> Optional[str]:
    """The function a reason says returns its records to callers not linked to it, or None."""
    found = RETURNED_TO.search(message)
    return found.group(1) if found else None


def uncalled(message: str) -> str:
    """The reason of `returned_to`, for a function no module of the run calls: public API."""
    return message.replace(_NOT_LINKED, "and no module of the run calls it: it stays as it is, for callers "
                                        "outside the run, which give it the queue it reads", 1)


class _Index(cst.CSTVisitor):
    """The simple statement and the function holding each wanted call."""

    def __init__(self, wanted: Set[int]):
        self.wanted = wanted
        self.functions: List[cst.FunctionDef] = []
        self.statement: Optional[cst.SimpleStatementLine] = None
        self.found: Dict[int, Tuple[Optional[cst.SimpleStatementLine], Optional[cst.FunctionDef]]] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.statement = node

    def leave_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.statement = None

    def visit_Call(self, node: cst.Call) -> None:
        if id(node) in self.wanted:
            self.found[id(node)] = (self.statement, self.functions[-1] if self.functions else None)


class _Calls(cst.CSTVisitor):
    def __init__(self):
        self.found: List[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.found.append(node)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def _data_names(node: cst.CSTNode) -> Set[str]:
    """The names an expression reads as data: all but those only in a call's arguments after its
    first positional one (sizes, options, names: `load(paths, width)` reads `paths` as data, not
    `width`) or in a subscript's index."""
    found: Set[str] = set()

    def visit(expr, data: bool) -> None:
        if isinstance(expr, cst.Name):
            if data:
                found.add(expr.value)
        elif isinstance(expr, cst.Call):
            visit(expr.func, data)
            positional = [arg for arg in expr.args if arg.keyword is None and not arg.star]
            for arg in expr.args:
                visit(arg.value, data and bool(positional) and arg is positional[0])
        elif isinstance(expr, cst.Attribute):
            visit(expr.value, data)
        elif isinstance(expr, cst.Subscript):
            visit(expr.value, data)
            for element in expr.slice:
                visit(element.slice, False)
        else:
            for child in expr.children:
                visit(child, data)
    visit(node, True)
    return found


def _calls(node: cst.CSTNode) -> List[cst.Call]:
    finder = _Calls()
    cstutil.walk(node, finder)
    return finder.found


def _arms_of(root: cst.CSTNode) -> Dict[int, Tuple[Tuple[int, int], ...]]:
    """For each simple statement of a function (or module), the if/else arms it sits in, as
    (id of the `if`, 0 for its body or 1 for what follows `else`/`elif`). The `if`s inside a loop
    are left out: a loop runs one arm after the other (as blocks.exclusive_loads has it)."""
    found: Dict[int, Tuple[Tuple[int, int], ...]] = {}

    def block(statements, arms, in_loop):
        for stmt in statements:
            if isinstance(stmt, cst.SimpleStatementLine):
                found[id(stmt)] = arms
            elif isinstance(stmt, cst.If):
                block(stmt.body.body, arms if in_loop else arms + ((id(stmt), 0),), in_loop)
                rest = arms if in_loop else arms + ((id(stmt), 1),)
                if isinstance(stmt.orelse, cst.If):
                    block([stmt.orelse], rest, in_loop)
                elif stmt.orelse is not None:
                    block(stmt.orelse.body.body, rest, in_loop)
            elif isinstance(stmt, cst.BaseCompoundStatement) and not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                looping = in_loop or isinstance(stmt, (cst.For, cst.While))
                for node in cstutil.children(stmt, tokens=False):  # loops, with, try: no choice between arms
                    if isinstance(node, cst.IndentedBlock):
                        block(node.body, arms, looping)
                    elif isinstance(node, (cst.Else, cst.Finally, cst.ExceptHandler)):
                        block(node.body.body, arms, looping)

    block(root.body.body if isinstance(root, cst.FunctionDef) else root.body, (), False)
    return found


def _exclusive(arms: Dict[int, Tuple[Tuple[int, int], ...]], one: cst.CSTNode, other: cst.CSTNode) -> bool:
    """Whether two statements sit in different arms of one `if`: no run reaches both."""
    where = dict(arms.get(id(one), ()))
    return any(where.get(node, arm) != arm for node, arm in arms.get(id(other), ()))


def explains(code: str) -> bool:
    """Whether Explainer.reason may say something about a call of this rule code (producers,
    readers, batchers, prefetch queues)."""
    return code.startswith(("QM1", "QM2", "QM3", "QM4"))


class Explainer:
    """Reasons for the calls of one module; built once, asked per call."""

    def __init__(self, module: cst.Module, calls: Iterable[cst.Call], resolve: Callable, line_of: Callable,
                 rewritten: Callable[[cst.Call], bool] = lambda call: False):
        """`rewritten(call)`: whether the migration rewrote that queue call (a reason that names
        another call as staying asks it)."""
        self.rewritten = rewritten
        index = _Index({id(call) for call in calls})
        cstutil.walk(module, index)
        self.where = index.found
        self.resolve = resolve
        self.line_of = line_of
        self.module = module
        self._bodies: Dict[int, List[cst.SimpleStatementLine]] = {}
        self._arm_maps: Dict[int, Dict[int, Tuple[Tuple[int, int], ...]]] = {}

    def reason(self, code: str, call: cst.Call) -> Optional[str]:
        """Why the call with this rule code is not part of a chain, or None if nothing specific is seen."""
        if not explains(code):
            return None
        statement, function = self.where.get(id(call), (None, None))
        if statement is None:
            return None
        body = self._body(function)
        if not any(s is statement for s in body):
            return None
        index = next(i for i, s in enumerate(body) if s is statement)
        try:
            if code.startswith("QM1"):
                if (self.resolve(call.func) or "").rpartition(".")[2] not in _PRODUCERS:
                    return None  # match_filenames_once and the like make no queue
                return self._producer(call, statement, function, body, index)
            if code.startswith("QM2"):
                return self._reader(call, statement, function, body, index)
            if code.startswith("QM3"):
                return self._batch(call, function, body, index)
            if code.startswith("QM4"):
                return self._prefetched(call, function, body, index)
        except _Unknown:
            return None
        return None

    # --- where things go -------------------------------------------------------------------
    def _producer(self, call, statement, function, body, index) -> Optional[str]:
        queue = self._target(statement, call)
        if queue is None:
            return None
        for later in range(index + 1, len(body)):
            stmt = body[later]
            if queue not in cstutil.name_uses(stmt).loads:
                continue
            line = self.line_of(stmt)
            for used in _calls(stmt):  # handed to a call (in a `return` too): said before the return
                if not any(_is_name(arg.value, queue) for arg in used.args):
                    continue
                if (self.resolve(used.func) or "").startswith("tensorflow."):
                    return None  # the queue itself in a TensorFlow op (its size, a dequeue): said elsewhere
                if isinstance(used.func, cst.Attribute) and used.func.attr.value in _READS:
                    return self._records(stmt, body, later, function, "its records")
                name = self._callee(used)
                records = self._records(stmt, body, later, function, "the records it gives back")
                if self._defined_here(used):
                    return ("its queue `%s` is passed to %s() (line %d), a function of this module that reads it%s; "
                            "qmigrate makes the queue in such a function instead only when the queue is made for "
                            "that one call (read nowhere else, not in a loop), the function is defined once, not "
                            "decorated and named nowhere else in the module or the run, and what the queue is made "
                            "from means the same there" % (queue, name, line, "; " + records if records else ""))
                return "its queue `%s` is passed to %s() (line %d), which qmigrate does not follow as a reader " \
                       "helper%s" % (queue, name, line, "; " + records if records else "")
            if isinstance(cstutil.single_small(stmt), cst.Return):
                return "its queue `%s` is returned (line %d): it is read in a caller, which qmigrate does not link" % (
                    queue, line)
            return None
        return "its queue `%s` is not read in this function" % queue

    def _reader(self, call, statement, function, body, index) -> Optional[str]:
        inline = self._inline_read(statement, call)
        if inline is not None:  # `tf.TFRecordReader().read(queue)`
            return self._read_from(inline, statement, body, index, function)
        small = cstutil.single_small(statement)
        if isinstance(small, cst.Return) and small.value is call and function is not None:
            return self._reader_factory(function, statement)
        reader = self._target(statement, call)
        if reader is None:
            return None
        for later in range(index + 1, len(body)):
            stmt = body[later]
            if reader not in cstutil.name_uses(stmt).loads:
                continue
            for used in _calls(stmt):
                if (isinstance(used.func, cst.Attribute) and used.func.attr.value in _READS
                        and _is_name(used.func.value, reader)):
                    return self._read_from(used, stmt, body, later, function)
            return "the reader `%s` is used at line %d other than by read()" % (reader, self.line_of(stmt))
        return None

    def _reader_factory(self, function: cst.FunctionDef, statement) -> str:
        """`def reader_fn(): return tf.TFRecordReader(...)`: a reader made for whoever calls the
        function, and where the module hands the function over (`reader=reader_fn`), if it does."""
        name = function.name.value
        said = "the reader is returned (line %d) by %s(), which makes readers for its callers" % (
            self.line_of(statement), name)
        for call in _calls(self.module):
            if any(_is_name(arg.value, name) for arg in call.args):
                return said + "; %s is handed to %s() (line %d), which reads with it through queues of its own" % (
                    name, self._callee(call), self.line_of(call))
        return said + ": qmigrate follows a reader where it reads"

    def _read_from(self, read: cst.Call, stmt, body, index, function) -> Optional[str]:
        queue = read.args[0].value if read.args else None
        if (isinstance(queue, cst.Name) and function is not None
                and queue.value in _params(function)):
            looked_up = lookup_tables.lookup_in(function.body, self.resolve, None)
            if looked_up is not None:  # (helpers: not a reader helper then)
                return "it reads `%s`, a parameter of %s(), whose code %s" % (
                    queue.value, function.name.value, lookup_tables.REASON.split("the per-record code ", 1)[1] % (
                        "%s(...)" % self.module.code_for_node(looked_up.func), self.line_of(looked_up)))
            records = self._records(stmt, body, index, function, "its records")
            return "it reads `%s`, a parameter of %s(), so its producer is in a caller%s" % (
                queue.value, function.name.value, "; " + records if records else "")
        return self._records(stmt, body, index, function, "its records")

    def _records(self, stmt, body, index, function, what: str) -> Optional[str]:
        """Where the records bound by `stmt` go when no batching in this function takes them."""
        tainted = set(cstutil.name_uses(stmt).stores) | set(cstutil.name_uses(stmt).mutated)
        if not tainted:
            return None
        for later in range(index + 1, len(body)):
            current = body[later]
            uses = cstutil.name_uses(current)
            if not tainted & set(uses.loads):
                continue
            if self._batches(current):
                raise _Unknown()  # batched here: the reason, if any, is another one
            small = cstutil.single_small(current)
            line = self.line_of(current)
            if isinstance(small, cst.Return):
                helpers = [c for c in _calls(current) if self._callee(c, tf_too=False)]
                if helpers:
                    return "%s go to %s() in the return at line %d, a function qmigrate does not follow as a " \
                           "batching helper" % (what, self._callee(helpers[0]), line)
                where = " of %s()" % function.name.value if function is not None else ""
                return "%s are returned (line %d) to the callers%s, %s" % (what, line, where, _NOT_LINKED)
            enqueues = [c for c in _calls(current) if isinstance(c.func, cst.Attribute)
                        and c.func.attr.value in ("enqueue", "enqueue_many")]
            if enqueues:
                return "%s are enqueued into a hand-built queue (line %d)" % (what, line)
            if isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Attribute) for t in small.targets):
                return "%s are stored on an object at line %d (`%s`)" % (
                    what, line, dotted(next(t.target for t in small.targets if isinstance(t.target, cst.Attribute))))
            tainted |= set(uses.stores) | set(uses.mutated)  # `result['x'] = f(record)`: the dict holds records
        return "%s are not batched in %s" % (what, "%s()" % function.name.value if function is not None
                                              else "this module")

    # --- where batched tensors come from ---------------------------------------------------
    def _in_memory_rows(self, call, tensors, body, index) -> Optional[str]:
        """Why a batching of in-memory arrays stays: `enqueue_many=True` over a list whose every
        element is a `tf.constant(...)` or a NumPy call, or a name bound to one before the call in
        this function or at the module's top level. None otherwise."""
        if not any(arg.keyword is not None and arg.keyword.value == "enqueue_many" and isinstance(arg.value, cst.Name)
                   and arg.value.value == "True" for arg in call.args):
            return None
        if not isinstance(tensors, (cst.List, cst.Tuple)) or not tensors.elements:
            return None
        bound = {}
        for stmt in list(self.module.body) + list(body[:index]):
            for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(
                        small.targets[0].target, cst.Name):
                    bound[small.targets[0].target.value] = small.value
        for element in tensors.elements:
            value = element.value
            if isinstance(value, cst.Name):
                value = bound.get(value.value)
            if not (isinstance(value, cst.Call) and in_memory_rows.makes_array(value, self.resolve)):
                return None
        return ("it batches the rows of in-memory arrays (`%s` with enqueue_many=True: each run of its enqueue op "
                "adds all their rows again, for ever), which qmigrate rewrites only when each array is made by a "
                "tf.constant or NumPy call in the batching, or is a name whose one binding in its scope, a plain "
                "statement before the batching, makes it (in_memory_rows); write it as "
                "tf.data.Dataset.from_tensor_slices((...)) repeated and, for shuffle_batch, shuffled with "
                "min_after_dequeue, then batched" % cst.Module([]).code_for_node(tensors))

    def _batch(self, call, function, body, index) -> Optional[str]:
        # bucket_by_sequence_length takes the record's length first, its tensors second
        position = 1 if (self.resolve(call.func) or "").endswith(".bucket_by_sequence_length") else 0
        positional = [arg for arg in call.args if arg.keyword is None]
        tensors = positional[position].value if len(positional) > position else None
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in ("tensors", "tensors_list"):
                tensors = arg.value
        if tensors is None:
            return None
        in_memory = self._in_memory_rows(call, tensors, body, index)
        if in_memory is not None:
            return in_memory
        # Every statement the batched tensors come from, transitively: a read among them means the
        # chain is in this function (its reason is another one); else the earliest call that is not
        # TensorFlow's is where the tensors come from.
        kept = self._kept_on_object(tensors, function, body, index)
        if kept is not None:
            return kept
        needed = list(dict.fromkeys(cstutil.name_uses(tensors).loads))
        arms = self._arms(function)
        seen: Set[str] = set()
        sources: List[int] = []
        parameter = None
        incoming: List[Tuple[str, int]] = []  # (parameter, statement) where records come in as a parameter
        filled = False  # some list the tensors come from is filled by appends
        loose: Set[str] = set()  # names they come from that nothing here binds (nor imports, nor builtins)
        while needed:
            name = needed.pop(0)
            if name in seen:
                continue
            seen.add(name)
            # `items.append(x)` fills a list bound before: what it appends counts as where it comes from.
            appended = [i for i in range(index) if not _exclusive(arms, body[i], body[index]) and any(
                isinstance(c.func, cst.Attribute) and c.func.attr.value in ("append", "extend", "insert")
                and _is_name(c.func.value, name) for c in _calls(body[i]))]
            filled = filled or bool(appended)
            for filler in appended:
                if any(isinstance(c.func, cst.Attribute) and c.func.attr.value in _READS for c in _calls(body[filler])):
                    return None
                sources.append(filler)
                needed += [n for n in cstutil.name_uses(body[filler]).loads if n not in seen]
            binder = self._binder(function, body, index, name)
            if binder is None:
                if parameter is None and function is not None and name in _params(function):
                    parameter = name
                elif self.resolve(cst.Name(name)) is None and not hasattr(builtins, name):
                    loose.add(name)
                continue  # a module-level name, or bound in a compound statement's header
            if any(isinstance(c.func, cst.Attribute) and c.func.attr.value in _READS for c in _calls(body[binder])):
                return None
            sources.append(binder)
            given = _given_parameter(body[binder], function)
            if given is not None:
                incoming.append((given, binder))
            if self._makes_queue(body[binder]):
                continue  # what a producer is given are file names, not where the batched tensors start
            assign = cstutil.single_assign(body[binder])
            made = assign[1].elt if assign and isinstance(assign[1], (cst.ListComp, cst.GeneratorExp)) else None
            # `[read(queue) for _ in range(n)]`: the records come from the call, not from `n`
            needed += [n for n in cstutil.name_uses(made if made is not None else body[binder]).loads
                       if n not in seen]
        if incoming:
            through = self._through_parameter(function, body, sorted(set(sources)),
                                              min(incoming, key=lambda found: found[1]))
            if through is not None:
                return through
        # The earliest of the statements the tensors come from as data (a call's receiver or first
        # argument: `image = load(paths, width)` comes from load(), not from `width =
        # config.getint(...)` before it), then the others.
        flowing = self._data_sources(body, index, tensors, sources, function)
        for binder in sorted(flowing) + sorted(set(sources) - flowing):  # the earliest: where the tensors start
            assign = cstutil.single_assign(body[binder])
            value = assign[1] if assign else None
            if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
                value = value.elt  # `[read(queue) for _ in range(n)]`: made by that call, n times
                while isinstance(value, (cst.Attribute, cst.Subscript)):
                    value = value.value  # `[read(queue).image ...]`: made by that call too
            if not (isinstance(value, cst.Call) and self._callee(value, tf_too=False)):
                continue
            callee, line = self._callee(value), self.line_of(body[binder])
            if isinstance(value.func, cst.Attribute) and value.func.attr.value.startswith("dequeue"):
                return ("the tensors it batches come from %s() (line %d), the dequeue of a queue that is not "
                        "replaced" % (callee, line))
            return ("the tensors it batches come from %s() (line %d), a call qmigrate does not follow to a "
                    "producer → reader chain%s" % (callee, line, self._foreign_object(value, function, body, binder)))
        made = [binder for binder in sorted(set(sources)) if _calls(body[binder])]
        if parameter is None and made and not filled and not loose and all(
                (self.resolve(c.func) or "").startswith("tensorflow.") for b in made for c in _calls(body[b])):
            # Nothing read: TensorFlow ops make every record (a py_func, random ops), which the
            # batching's runner ran once per record.
            return ("the tensors it batches are made by TensorFlow ops alone, no reader (from line %d): its queue's "
                    "runner ran them once for each record; qmigrate makes datasets of records read from files or "
                    "arrays; by hand: tf.data.Dataset.from_tensors(0).repeat().map(lambda _: <those ops>), then "
                    "batch" % self.line_of(body[made[0]]))
        if parameter is not None and _is_name(tensors, parameter) and not self._called_here(function):
            return ("the tensors it batches are `%s`, a parameter of %s(), which no function of this module calls: "
                    "qmigrate rewrites a function that batches the records it is handed only together with the "
                    "function that reads them, when one caller in the same module hands them from one to the "
                    "other" % (parameter, function.name.value))
        if parameter is not None:
            listed = isinstance(tensors, (cst.List, cst.Tuple)) and all(
                isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in tensors.elements)
            if not listed:  # batch_down / helpers follow a batching call that lists the parameters
                return ("the tensors it batches come in as `%s`, a parameter of %s(), as part of `%s`: qmigrate "
                        "follows a batching helper into its callers only when its batching call lists the "
                        "parameters themselves (`[%s, ...]`), or a list of them built just before" % (
                            parameter, function.name.value, cst.Module([]).code_for_node(tensors), parameter))
            return ("the tensors it batches come in as `%s`, a parameter of %s(): their reader is in a caller, "
                    "which qmigrate does not link to this batching" % (parameter, function.name.value))
        return None

    def _through_parameter(self, function, body, sources, incoming) -> Optional[str]:
        """The reason when the batched tensors are records a parameter brings in (`a, b = records`,
        `x = records.image`), worked on here one record at a time: where the callers of this module
        get them, and that the reading, the per-record code and the batch are in separate
        functions. None when a call that is not TensorFlow's gives tensors that do not come from
        that parameter (those are where the tensors start), or when nothing specific is seen."""
        parameter, unpacked = incoming
        per_record = []
        for binder in sources:
            assign = cstutil.single_assign(body[binder])
            calls = [c for c in _calls(body[binder]) if self._callee(c, tf_too=False)]
            if not calls:
                continue
            if binder < unpacked or not self._reaches(function, body, binder, parameter):
                return None  # tensors of another origin: the earliest call says where they start
            if assign is not None and any(call is assign[1] for call in calls):
                per_record.append("%s(), line %d" % (self._callee(assign[1]), self.line_of(body[binder])))
        work = (", and pass through per-record code before the batch (%s)" % "; ".join(per_record)
                if per_record else "")
        caller = self._caller_source(function, parameter)
        if caller is None:
            return None
        caller_name, call_line, source, source_line = caller
        said = ("the tensors it batches come in as `%s`, a parameter of %s() (taken apart at line %d)%s; its "
                "caller %s() (line %d) passes it what %s() (line %d) returns" % (
                    parameter, function.name.value, self.line_of(body[unpacked]), work, caller_name, call_line,
                    source, source_line))
        if self._reads_records(source):
            said += (", records read one at a time there. Migrated, %s() would return a dataset that %s() maps "
                     "and batches" % (source, function.name.value))
        return (said + "; qmigrate links records across functions only from a reader helper, from a producer → "
                "reader record source to the caller that batches, to a batching helper that batches its "
                "parameters as given, or from a function of this module that reads them one at a time and is "
                "called once, by a function that hands them straight to the batching function")

    def _reads_records(self, name: str) -> bool:
        """Whether the module's top-level function `name` reads records itself: a reader's read,
        slim's parallel_read or a DatasetDataProvider."""
        function = next((f for f in _functions(self.module) if f.name.value == name), None)
        if function is None:
            return False
        for stmt in self._body(function):
            for call in _calls(stmt):
                resolved = self.resolve(call.func) or ""
                if resolved.endswith(("DatasetDataProvider", "parallel_read")) or (
                        isinstance(call.func, cst.Attribute) and call.func.attr.value in _READS):
                    return True
        return False

    def _reaches(self, function, body, index: int, parameter: str) -> bool:
        """Whether what statement `index` loads comes, through earlier statements, from `parameter`."""
        needed = list(cstutil.name_uses(body[index]).loads)
        seen: Set[str] = set()
        while needed:
            name = needed.pop()
            if name in seen:
                continue
            seen.add(name)
            if name == parameter:
                return True
            binder = self._binder(function, body, index, name)
            if binder is not None:
                needed += cstutil.name_uses(body[binder]).loads
        return False

    def _caller_source(self, function, parameter: str) -> Optional[Tuple[str, int, str, int]]:
        """(caller, line of its call, function whose result it passes, line of that call) for the
        first call of `function` in this module whose argument for `parameter` is a name the caller
        bound from the result of a call of a function that is not TensorFlow's; None if none."""
        if function is None or parameter not in _params(function):
            return None
        params = _params(function)
        position = params.index(parameter)
        for caller in _functions(self.module):
            if caller is function:
                continue
            caller_body = self._body(caller)
            for at, stmt in enumerate(caller_body):
                for call in _calls(stmt):
                    if not _is_name(call.func, function.name.value):
                        continue
                    argument = next((a.value for a in call.args if a.keyword is not None
                                     and a.keyword.value == parameter), None)
                    positional = [a for a in call.args if a.keyword is None and not a.star]
                    if argument is None and position < len(positional):
                        argument = positional[position].value
                    if not isinstance(argument, cst.Name):
                        continue
                    binder = self._binder(caller, caller_body, at, argument.value)
                    assign = cstutil.single_assign(caller_body[binder]) if binder is not None else None
                    if assign is None or not isinstance(assign[1], cst.Call):
                        continue
                    source = self._callee(assign[1], tf_too=False)
                    if source is None:
                        continue
                    return (caller.name.value, self.line_of(stmt), source, self.line_of(caller_body[binder]))
        return None

    def _foreign_object(self, call: cst.Call, function, body, index: int) -> str:
        """For `obj.method(...)` at statement `index`, where `obj` was bound earlier from a class of
        an imported module (`obj = records.Reader().parser`): a clause saying so, and on what terms
        such a method is followed (imported_helpers); "" otherwise."""
        if not (isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name)):
            return ""
        name = call.func.value.value
        binder = self._binder(function, body, index, name)
        assign = cstutil.single_assign(body[binder]) if binder is not None else None
        if assign is None or not (isinstance(assign[0], cst.Name) and assign[0].value == name):
            return ""
        made = assign[1]
        while isinstance(made, cst.Attribute):  # `records.Reader().parser`: the object the property is read from
            made = made.value
        if not (isinstance(made, cst.Call) and isinstance(made.func, cst.Attribute)):
            return ""
        resolved = self.resolve(made.func) or ""
        if not resolved or resolved.split(".")[0] == "tensorflow":
            return ""
        return ("; `%s` holds an object made from %s() (line %d), a class of another module, whose reading "
                "method qmigrate follows only when that module is migrated in the same run, the method makes its "
                "producer and reader from its parameters and TensorFlow alone, and every call of it in the run "
                "is migrated with it" % (name, dotted(made.func), self.line_of(body[binder])))

    def _kept_on_object(self, tensors, function, body, index) -> Optional[str]:
        """Batched tensors read from attributes of a parameter (`self.wav`) that an earlier statement
        of the function sets from a call: said as such, not as tensors that come in as `self`."""
        if function is None:
            return None
        params = _params(function)
        attributes = [node for node in _attributes(tensors)
                      if isinstance(node.value, cst.Name) and node.value.value in params]
        for attribute in attributes:
            spelled = dotted(attribute)
            for earlier in range(index - 1, -1, -1):
                assign = cstutil.single_assign(body[earlier])
                if not assign or not any(dotted(t) == spelled for t in _targets(assign[0])):
                    continue
                value = assign[1]
                callee = self._callee(value) if isinstance(value, cst.Call) else None
                origin = " from %s()" % callee if callee else ""
                return ("the tensors it batches are kept on the object (`%s`, set at line %d%s): a chain that "
                        "goes through attributes, which qmigrate does not follow" % (
                            spelled, self.line_of(body[earlier]), origin))
        own = [dotted(node) for node in attributes if params and node.value.value == params[0] in ("self", "cls")]
        if own:  # set by another method (`__init__`): not tensors that come in as `self`
            return ("the tensors it batches are kept on the object (`%s`), set outside %s(): a chain that goes "
                    "through attributes another method sets, which qmigrate does not follow" % (
                        own[0], function.name.value))
        return None

    # --- helpers -----------------------------------------------------------------------------
    def _body(self, function) -> List[cst.SimpleStatementLine]:
        root = function if function is not None else self.module
        key = id(root)
        if key not in self._bodies:
            self._bodies[key] = cstutil.simple_statements(root)
        return self._bodies[key]

    def _data_sources(self, body, index: int, tensors, sources, function) -> Set[int]:
        """The statements of `sources` the batched tensors come from as data: those binding a
        name the tensors read, and, from each, those binding a name it reads as data
        (_data_names)."""
        flowing: Set[int] = set()
        pending = [(index, name) for name in _data_names(tensors)]
        while pending:
            at, name = pending.pop()
            binder = self._binder(function, body, at, name)
            if binder is None or binder not in sources or binder in flowing:
                continue
            flowing.add(binder)
            assign = cstutil.single_assign(body[binder])
            value = assign[1] if assign else body[binder]
            pending += [(binder, read) for read in _data_names(value)]
        return flowing

    def _binder(self, function, body, index: int, name: str) -> Optional[int]:
        """The last statement before `index` in `body` (the simple statements of `function`, or of
        the module for None) that binds `name` on a path to it: a binding in another arm of an `if`
        is not where the name comes from."""
        arms = self._arms(function)
        return next((i for i in range(index - 1, -1, -1) if name in cstutil.name_uses(body[i]).stores
                     and not _exclusive(arms, body[i], body[index])), None)

    def _arms(self, function) -> Dict[int, Tuple[Tuple[int, int], ...]]:
        root = function if function is not None else self.module
        if id(root) not in self._arm_maps:
            self._arm_maps[id(root)] = _arms_of(root)
        return self._arm_maps[id(root)]

    def _defined_here(self, call: cst.Call) -> bool:
        """Whether `call` calls a top-level function of the module (`f(...)`) or a method of one of
        its top-level classes (`self.m(...)`) that reads a queue with a reader."""
        func = call.func
        if isinstance(func, cst.Name):
            defined = [stmt for stmt in self.module.body
                       if isinstance(stmt, cst.FunctionDef) and stmt.name.value == func.value]
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            defined = [stmt for cls in self.module.body if isinstance(cls, cst.ClassDef)
                       and isinstance(cls.body, cst.IndentedBlock) for stmt in cls.body.body
                       if isinstance(stmt, cst.FunctionDef) and stmt.name.value == func.attr.value]
        else:
            return False
        return any(isinstance(node.func, cst.Attribute) and node.func.attr.value in _READS
                   for function in defined for node in _calls(function))

    def _called_here(self, function) -> bool:
        """Whether the module calls `function` by its name, or by any attribute of that name."""
        name = function.name.value
        return any(_is_name(call.func, name) or isinstance(call.func, cst.Attribute) and call.func.attr.value == name
                   for call in _calls(self.module))

    def _prefetched(self, call, function, body, index) -> Optional[str]:
        """A prefetch queue of batches a batching call of this function made, which stays: its
        reason is said there (the prefetch queue migrates with that batching or not at all)."""
        tensors = batch_down.tensors_argument(call)  # prefetch_queue(tensors, capacity, ...), as the batchers
        if tensors is None:
            return None
        # Back along the data from its tensors, through what transforms the batch, to the batching.
        needed, seen, batchings = list(cstutil.name_uses(tensors).loads), set(), {}
        while needed:
            name = needed.pop(0)
            if name in seen:
                continue
            seen.add(name)
            binder = self._binder(function, body, index, name)
            if binder is None:
                continue
            made = [used for used in _calls(body[binder]) if self._is_batching(used)]
            if made:
                batchings.update((id(used), (used, binder)) for used in made)
            else:
                needed += cstutil.name_uses(body[binder]).loads
        if len(batchings) != 1:
            return None
        batching, binder = next(iter(batchings.values()))
        if self.rewritten(batching):
            return None
        return ("the batches it holds come from `%s(...)` (line %d), which stays as it is, for the reason given "
                "there; the prefetch queue migrates with that batching" % (dotted(batching.func) or "the batching",
                                                                          self.line_of(body[binder])))

    def _batches(self, stmt) -> bool:
        return any(self._is_batching(call) for call in _calls(stmt))

    def _is_batching(self, call: cst.Call) -> bool:
        name = self.resolve(call.func) or ""
        return name.startswith("tensorflow.train.") and "batch" in name

    def _makes_queue(self, statement) -> bool:
        """Whether `statement` binds a name to a TensorFlow producer's queue of file names or indices
        (`q = tf.train.string_input_producer(...)`); not slice_input_producer, whose arguments are
        the rows it gives."""
        assign = cstutil.single_assign(statement)
        if not (assign and isinstance(assign[0], cst.Name) and isinstance(assign[1], cst.Call)):
            return False
        module, _, name = (self.resolve(assign[1].func) or "").rpartition(".")
        return module.startswith("tensorflow") and name in _PRODUCERS - {"slice_input_producer"}

    def _callee(self, call: cst.Call, tf_too: bool = True) -> Optional[str]:
        """The called function's spelling (`self._read`, `build_batch`); None for TensorFlow's own
        functions unless `tf_too`, and for calls of anything but a name or attribute."""
        name = self.resolve(call.func) or ""
        if not tf_too and (name.startswith("tensorflow.") or name in _BUILTINS):
            return None
        spelled = dotted(call.func)
        if spelled is None and isinstance(call.func, cst.Attribute):  # `readers.Single().prepare(q)`
            receiver = call.func.value
            while isinstance(receiver, (cst.Call, cst.Attribute, cst.Subscript)) and dotted(receiver) is None:
                receiver = receiver.func if isinstance(receiver, cst.Call) else receiver.value
            head = dotted(receiver)
            spelled = "%s(...).%s" % (head, call.func.attr.value) if head else None
        if spelled is None or (not tf_too and spelled in _BUILTINS):
            return None
        return spelled

    def _target(self, statement, call) -> Optional[str]:
        assign = cstutil.single_assign(statement)
        if assign and assign[1] is call and isinstance(assign[0], cst.Name):
            return assign[0].value
        return None

    def _inline_read(self, statement, call) -> Optional[cst.Call]:
        for used in _calls(statement):
            if (isinstance(used.func, cst.Attribute) and used.func.attr.value in _READS
                    and used.func.value is call):
                return used
        return None


# NumPy functions that make a new array from Python values (not from a tensor).
_PRODUCERS = frozenset(("string_input_producer", "input_producer", "range_input_producer", "slice_input_producer"))
_BUILTINS = frozenset(("len", "list", "tuple", "dict", "int", "float", "str", "range", "zip", "isinstance",
                       "print", "min", "max", "sorted", "enumerate", "map", "set", "getattr", "super"))


class _Unknown(Exception):
    """Nothing specific to say."""


def _given_parameter(stmt, function) -> Optional[str]:
    """The parameter a statement takes records from as they are: `a, b = p`, `x = p`, `x = p.attr`
    or `x = p[k]` for a parameter `p` of `function`; None otherwise."""
    assign = cstutil.single_assign(stmt)
    if assign is None or function is None:
        return None
    value = assign[1]
    while isinstance(value, (cst.Attribute, cst.Subscript)):
        value = value.value
    if isinstance(value, cst.Name) and value.value in _params(function):
        return value.value
    return None


def _functions(module: cst.Module) -> List[cst.FunctionDef]:
    """The module's top-level functions."""
    return [stmt for stmt in module.body if isinstance(stmt, cst.FunctionDef)]


def _is_name(node, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _params(function: cst.FunctionDef) -> Sequence[str]:
    params = function.params
    return [p.name.value for p in list(params.posonly_params) + list(params.params) + list(params.kwonly_params)]


def _attributes(node: cst.CSTNode) -> List[cst.Attribute]:
    """The `name.attr` attributes a node holds, outermost first."""
    found = []

    class _Finder(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            found.append(attribute)
            return False

    cstutil.walk(node, _Finder())
    return found


def _targets(target: cst.BaseExpression) -> List[cst.BaseExpression]:
    """The single targets of an assignment target (tuples and lists unpacked)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return [leaf for element in target.elements for leaf in _targets(element.value)]
    return [target]
