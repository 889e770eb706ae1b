"""Small, TF-agnostic helpers over libcst trees: names read and written, statement shapes."""
import inspect
import re
from collections import Counter
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

import libcst as cst
from libcst._nodes import op as _op_nodes, whitespace as _whitespace_nodes

from qmigrate.statement_memo import StatementMemo


# --- A fast read-only walk -------------------------------------------------------------------
# `node.visit(visitor)` rebuilds every node it passes (libcst builds the "updated" tree even for a
# read-only visitor), which costs most of an analysis. `walk` calls the same hooks on the same
# nodes in the same order without building anything.

# Each node class visits its children in the order its _visit_and_replace_children names them
# (`visit_required(self, "func", ...)`): read once per class from that method's source.
_FIELD_CALL = re.compile(r'visit_\w+\(\s*self,\s*"(\w+)"')
_CHILD_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _child_fields(kind: type) -> Tuple[str, ...]:
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        names = _FIELD_CALL.findall(inspect.getsource(kind._visit_and_replace_children))
        fields = _CHILD_FIELDS[kind] = tuple(dict.fromkeys(names))
    return fields


def _token_classes() -> Set[type]:
    """Whitespace, comments, operators and brackets: nodes that hold nothing but more of them."""
    found = set()
    for module in (_op_nodes, _whitespace_nodes):
        found.update(value for value in vars(module).values()
                     if inspect.isclass(value) and issubclass(value, cst.CSTNode) and value.__module__ == module.__name__)
    found.update((cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace,
                  cst.RightCurlyBrace, cst.Asynchronous))
    return found


_TOKENS = _token_classes()
_TOKEN_NAMES = {kind.__name__ for kind in _TOKENS}
_HOOK = re.compile(r"(visit|leave)_([A-Z]\w*)$")
_PLANS: Dict[type, tuple] = {}


def _plan(visitor_class: type) -> tuple:
    """(whether `walk` can stand for libcst's visit, the node classes it may skip, and a table
    filled as node classes come: class -> (visit hook, leave hook, child fields)) for a visitor
    class. The hooks are the class's functions, None where libcst's do-nothing default stands."""
    plan = _PLANS.get(visitor_class)
    if plan is None:
        # libcst's CSTVisitor defines a do-nothing hook for every node and field: only overrides count.
        hooked = {match.group(2) for match in map(_HOOK.match, dir(visitor_class))
                  if match and getattr(visitor_class, match.group(0)) is not getattr(cst.CSTVisitor, match.group(0), None)}
        own_dispatch = (visitor_class.on_visit is not cst.CSTVisitor.on_visit
                        or visitor_class.on_leave is not cst.CSTVisitor.on_leave)
        # Hooks on one field of a node (`visit_Call_func`) are called by libcst's visit only.
        supported = issubclass(visitor_class, cst.CSTVisitor) and all("_" not in name for name in hooked) and not (
            visitor_class.on_visit_attribute is not cst.CSTVisitor.on_visit_attribute
            or visitor_class.on_leave_attribute is not cst.CSTVisitor.on_leave_attribute)
        skip = frozenset() if own_dispatch or hooked & _TOKEN_NAMES else frozenset(_TOKENS)
        plan = _PLANS[visitor_class] = (supported and not own_dispatch, supported, skip, {})
    return plan


# The nodes that may hold statements: a visitor or transformer that only looks at statements
# needs to go into these and no further (no statement hides in an expression or a small statement).
STATEMENT_CONTAINERS = (cst.Module, cst.BaseSuite, cst.BaseCompoundStatement, cst.SimpleStatementLine, cst.Else,
                        cst.ExceptHandler, cst.ExceptStarHandler, cst.Finally, cst.MatchCase)


_IS_CONTAINER: Dict[type, bool] = {}  # class -> whether a STATEMENT_CONTAINERS class


def holds_statements(node: cst.CSTNode) -> bool:
    """isinstance(node, STATEMENT_CONTAINERS), answered once per class (libcst's base classes are
    abstract: isinstance on them is slow, and a transformer asks it of every node)."""
    kind = type(node)
    answer = _IS_CONTAINER.get(kind)
    if answer is None:
        answer = _IS_CONTAINER[kind] = issubclass(kind, STATEMENT_CONTAINERS)
    return answer


def walk(node: cst.CSTNode, visitor: cst.CSTVisitor, statements_only: bool = False) -> None:
    """`node.visit(visitor)` for a read-only visitor: the same hooks, nodes and order, and faster.

    A hook may return False to skip the node's children, as with libcst. Visitors with
    per-field hooks fall back to libcst's own visit. `statements_only`: the children of nodes
    that hold no statement are not visited (those nodes themselves are): for visitors whose
    hooks are on statements and look no deeper than the node they are given.
    """
    by_hooks, supported, skip, table = _PLANS.get(type(visitor)) or _plan(type(visitor))
    if by_hooks:
        _walk_hooks(node, visitor, table, skip, statements_only)
    elif supported:
        assert not statements_only, "statements_only needs a visitor without its own on_visit"
        _walk_dispatch(node, visitor)
    else:
        node.visit(visitor)


def _entry(visitor_class: type, kind: type) -> tuple:
    def own(name):
        hook = getattr(visitor_class, name, None)
        return None if hook is None or hook is getattr(cst.CSTVisitor, name, None) else hook

    return (own("visit_" + kind.__name__), own("leave_" + kind.__name__), _child_fields(kind),
            issubclass(kind, STATEMENT_CONTAINERS))


_IS_NODE: Dict[type, bool] = {}  # class -> whether a CSTNode (isinstance on libcst's ABCs is slow)


def _is_node(kind: type) -> bool:
    answer = _IS_NODE.get(kind)
    if answer is None:
        answer = _IS_NODE[kind] = issubclass(kind, cst.CSTNode)
    return answer


def _walk_hooks(node, visitor, table, skip, statements_only) -> None:
    kind = type(node)
    entry = table.get(kind)
    if entry is None:
        entry = table[kind] = _entry(type(visitor), kind)
    enter, leave, fields, container = entry
    if (enter is None or enter(visitor, node) is not False) and (container or not statements_only):
        for name in fields:
            value = getattr(node, name)
            kind = type(value)
            if kind is tuple or kind is list:
                for child in value:
                    kind = type(child)
                    if kind not in skip and (_IS_NODE.get(kind) or _is_node(kind)):
                        _walk_hooks(child, visitor, table, skip, statements_only)
            elif kind not in skip and (_IS_NODE.get(kind) or _is_node(kind)):
                _walk_hooks(value, visitor, table, skip, statements_only)
    if leave is not None:
        leave(visitor, node)


def _walk_dispatch(node, visitor) -> None:
    """For visitors with their own on_visit/on_leave: every node, through them."""
    if visitor.on_visit(node):
        for name in _CHILD_FIELDS.get(type(node)) or _child_fields(type(node)):
            value = getattr(node, name)
            kind = type(value)
            if kind is tuple or kind is list:
                for child in value:
                    if _IS_NODE.get(type(child)) or _is_node(type(child)):
                        _walk_dispatch(child, visitor)
            elif _IS_NODE.get(kind) or _is_node(kind):
                _walk_dispatch(value, visitor)
    visitor.on_leave(node)


def children(node: cst.CSTNode, tokens: bool = True) -> List[cst.CSTNode]:
    """The node's direct children, as libcst visits them (faster than `node.children`); without
    `tokens`, not those that are whitespace, comments, operators or brackets (_TOKENS)."""
    found = []
    skip = () if tokens else _TOKENS
    for name in _CHILD_FIELDS.get(type(node)) or _child_fields(type(node)):
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            found.extend(child for child in value
                         if type(child) not in skip and (_IS_NODE.get(type(child)) or _is_node(type(child))))
        elif kind not in skip and (_IS_NODE.get(kind) or _is_node(kind)):
            found.append(value)
    return found


class _NameUses(cst.CSTVisitor):
    """With `scoped`, loads count only the names of the node's own scope: inside a function,
    lambda or comprehension that the node holds, a name that scope binds (a parameter, a target,
    or a name it assigns, imports or defines without `global`/`nonlocal`) is its own local, as
    Python decides, so its loads are not loads of the outer name. Stores and mutations are
    counted wherever they are."""

    def __init__(self, root: Optional[cst.CSTNode] = None, scoped: bool = False):
        self.loads: List[str] = []
        self.stores: Set[str] = set()
        self.mutated: Set[str] = set()  # `x.attr = ...` / `x[i] = ...` store into x
        self.control: Set[str] = set()  # return / yield / break / continue / global / nonlocal
        self._nested = 0  # inside a def (or class) of the node: its control flow is its own
        self._root = root  # the node asked about: its own parameters are no locals of a nested scope
        self._frames: List[_Frame] = []  # the nested scopes being walked, innermost last
        self._scoped = scoped

    def _store_target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.stores.add(target.value)
            if self._frames:
                self._frames[-1].bound.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._store_target(element.value)
        elif isinstance(target, cst.StarredElement):
            self._store_target(target.value)
        elif isinstance(target, (cst.Attribute, cst.Subscript)):
            base = target.value
            while isinstance(base, (cst.Attribute, cst.Subscript)):
                base = base.value
            if isinstance(base, cst.Name):
                self.mutated.add(base.value)
            walk(target.value, self)
            if isinstance(target, cst.Subscript):
                for element in target.slice:
                    walk(element, self)

    def visit_Assign(self, node: cst.Assign) -> bool:
        for target in node.targets:
            self._store_target(target.target)
        walk(node.value, self)
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        self._store_target(node.target)
        walk(node.target, self)
        walk(node.value, self)
        return False

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        self._store_target(node.target)
        if node.value is not None:
            walk(node.value, self)
        return False

    def visit_For(self, node: cst.For) -> None:
        self._store_target(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._store_target(node.target)

    def _comprehension(self, node, parts) -> Optional[bool]:
        """A comprehension is a scope of its own: its first iterable is read outside it."""
        if not self._scoped:
            return None
        walk(node.for_in.iter, self)
        self._frames.append(_Frame(set()))
        self._store_target(node.for_in.target)
        for part in [node.for_in.target] + list(node.for_in.ifs) + [node.for_in.inner_for_in] + parts:
            if part is not None:
                walk(part, self)
        self._leave_frame()
        return False

    def visit_ListComp(self, node: cst.ListComp) -> Optional[bool]:
        return self._comprehension(node, [node.elt])

    def visit_SetComp(self, node: cst.SetComp) -> Optional[bool]:
        return self._comprehension(node, [node.elt])

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> Optional[bool]:
        return self._comprehension(node, [node.elt])

    def visit_DictComp(self, node: cst.DictComp) -> Optional[bool]:
        return self._comprehension(node, [node.key, node.value])

    def visit_AsName(self, node: cst.AsName) -> bool:
        self._store_target(node.name)
        return False

    def _bind(self, name: str) -> None:
        self.stores.add(name)
        if self._frames:
            self._frames[-1].bound.add(name)

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            self._bind(alias.asname.name.value if alias.asname else dotted_head(alias.name))
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                self._bind(alias.asname.name.value if alias.asname else dotted_head(alias.name))
        return False

    def _in_scope(self, parameters: cst.Parameters, body: cst.CSTNode) -> None:
        """Walk a nested function's parameters' defaults (in the enclosing scope) and then its
        body in a frame of its own, whose loads of its locals are dropped."""
        every = list(parameters.posonly_params) + list(parameters.params) + list(parameters.kwonly_params)
        for star in (parameters.star_arg, parameters.star_kwarg):
            if isinstance(star, cst.Param):
                every.append(star)
        for param in every:
            if param.default is not None:
                walk(param.default, self)
        self._frames.append(_Frame({param.name.value for param in every}))
        self._nested += 1
        walk(body, self)
        self._nested -= 1
        self._leave_frame()

    def _leave_frame(self) -> None:
        """End the innermost scope: its loads of names it does not bind go to the enclosing one."""
        frame = self._frames.pop()
        kept = [name for name in frame.loads if name not in frame.bound or name in frame.free]
        (self._frames[-1].loads if self._frames else self.loads).extend(kept)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> Optional[bool]:
        self._bind(node.name.value)
        if node is self._root or not self._scoped:
            self._nested += 1
            return None
        for decorator in node.decorators:
            walk(decorator, self)
        self._in_scope(node.params, node.body)
        return False

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node is self._root or not self._scoped:
            self._nested -= 1

    def visit_Lambda(self, node: cst.Lambda) -> Optional[bool]:
        if not self._scoped:
            return None
        self._in_scope(node.params, node.body)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._bind(node.name.value)
        self._nested += 1

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._nested -= 1

    def _flow(self, what: str) -> None:
        if not self._nested:
            self.control.add(what)

    def visit_Param(self, node: cst.Param) -> bool:
        if node.default is not None:
            walk(node.default, self)
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        walk(node.value, self)  # the attribute name itself is not a variable
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        walk(node.value, self)  # the keyword is not a variable
        return False

    def visit_Name(self, node: cst.Name) -> None:
        (self._frames[-1].loads if self._frames else self.loads).append(node.value)

    def visit_Return(self, node: cst.Return) -> None:
        self._flow("return")

    def visit_Yield(self, node: cst.Yield) -> None:
        self._flow("yield")

    def visit_Break(self, node: cst.Break) -> None:
        self._flow("break")

    def visit_Continue(self, node: cst.Continue) -> None:
        self._flow("continue")

    def visit_Global(self, node: cst.Global) -> None:
        self._flow("global")
        self._free(node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self._flow("nonlocal")
        self._free(node.names)

    def _free(self, names) -> None:
        """`global x` / `nonlocal x` in a nested function: its `x` is the outer one."""
        if self._frames:
            self._frames[-1].free.update(item.name.value for item in names)


class _Frame:
    """A nested scope (function, lambda, comprehension) while _NameUses walks it: the names it
    binds, the names it declares global/nonlocal, and the loads in it (filtered when it ends)."""
    __slots__ = ("bound", "free", "loads")

    def __init__(self, parameters: Set[str]):
        self.bound: Set[str] = set(parameters)
        self.free: Set[str] = set()
        self.loads: List[str] = []


_MODULE_USES: Dict[int, Tuple[cst.Module, "_NameUses"]] = {}  # the last few modules asked about
_SCOPED_USES: Dict[int, Tuple[cst.Module, "_NameUses"]] = {}  # the same, for scoped_uses


def name_uses(node: cst.CSTNode) -> "_NameUses":
    """Names a node reads (with multiplicity), binds, mutates, and the control flow it holds
    (outside the functions it defines: their `return` is their own). Loads are every load in
    the node's text, in the functions it defines as well: see scoped_uses for Python's scopes.

    The result is shared: callers read it and never change it. Those of whole modules are kept
    for the last few modules (an analysis asks about the same module from several steps), and
    those of the last few hundred other nodes (a function's body, asked about once per
    expression moved out of it).
    """
    return _counted(_MODULE_USES, node, _NameUses, _PART_USES)


_PART_USES: Dict[int, Tuple[cst.CSTNode, "_NameUses"]] = {}  # name_uses of the last nodes that are not modules
_PARTS_KEPT = 256


def _counted(kept_uses: Dict[int, Tuple[cst.Module, "_NameUses"]], node: cst.CSTNode,
             make: Callable[[], "_NameUses"],
             kept_parts: Optional[Dict[int, Tuple[cst.CSTNode, "_NameUses"]]] = None) -> "_NameUses":
    """make()'s counts of `node`; a module's are kept in `kept_uses`, for the last few modules,
    and, given `kept_parts`, those of other nodes there, for the last _PARTS_KEPT (nodes are
    immutable: held, they stay right)."""
    module = isinstance(node, cst.Module)
    kept_uses = kept_uses if module else kept_parts
    if kept_uses is not None:
        kept = kept_uses.get(id(node))
        if kept is not None and kept[0] is node:
            return kept[1]
    uses = make()
    walk(node, uses)
    if kept_uses is not None:
        if len(kept_uses) >= (4 if module else _PARTS_KEPT):
            del kept_uses[next(iter(kept_uses))]  # the oldest
        kept_uses[id(node)] = (node, uses)
    return uses


def scoped_uses(node: cst.CSTNode, statement: bool = False) -> "_NameUses":
    """name_uses(node), but a load inside a function or lambda that the node defines counts only
    if it reads a name of the node's scope, not a local of that function (see _NameUses). A
    function node is the scope asked about (its parameters are its names), unless `statement`:
    then it is a `def` among the statements of a block, and its own locals are not counted."""
    return _counted(_SCOPED_USES, node, lambda: _NameUses(None if statement else node, scoped=True))


def _statement_names(statement: cst.CSTNode, _) -> Tuple[Counter, Set[str]]:
    uses = name_uses(statement)
    return Counter(uses.loads), uses.stores


_TOP_LEVEL_NAMES: StatementMemo[Tuple[Counter, Set[str]]] = StatementMemo(_statement_names)


def top_level_names(statement: cst.CSTNode) -> Tuple[Counter, Set[str]]:
    """(its loads counted, the names it binds) of a top-level statement, as name_uses counts
    them; shared (never changed), and counted once for all the statements of the same tree."""
    return _TOP_LEVEL_NAMES.get(statement)


def module_loads(module: cst.Module, base: Optional[cst.Module] = None,
                 base_loads: Optional[Counter] = None) -> Counter:
    """Counter(name_uses(module).loads), counted statement by statement (top_level_names): the
    versions of a module count only the statements they do not share. Given `base`, a module
    `module` was made from, and its loads (`base_loads`), only the statements one has and the
    other does not (the very nodes: a rewrite keeps those it leaves alone) are counted."""
    if base is None or base_loads is None:
        loads = Counter()
        for statement in module.body:
            loads.update(_TOP_LEVEL_NAMES.get(statement)[0])
        return loads
    olds, news = {id(s) for s in base.body}, {id(s) for s in module.body}
    loads = Counter(base_loads)
    for statement in base.body:
        if id(statement) not in news:
            loads.subtract(_TOP_LEVEL_NAMES.get(statement)[0])
    for statement in module.body:
        if id(statement) not in olds:
            loads.update(_TOP_LEVEL_NAMES.get(statement)[0])
    return +loads


def kept_module_uses(module: cst.Module) -> Optional["_NameUses"]:
    """name_uses(module) if it is among those kept, else None (nothing is computed)."""
    kept = _MODULE_USES.get(id(module))
    return kept[1] if kept is not None and kept[0] is module else None


def keep_module_uses(module: cst.Module, uses: "_NameUses") -> None:
    """Keep name_uses(module), counted before (by an earlier analysis of the same module)."""
    if id(module) not in _MODULE_USES and len(_MODULE_USES) >= 4:
        del _MODULE_USES[next(iter(_MODULE_USES))]
    _MODULE_USES[id(module)] = (module, uses)


def dotted_head(node: cst.BaseExpression) -> str:
    """`a` for the expression `a.b.c`."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else ""


class _OwnReturns(cst.CSTVisitor):
    def __init__(self):
        self.found: List[cst.Return] = []

    def visit_FunctionDef(self, node) -> bool:
        return False  # a nested function's returns are its own

    visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Return(self, node) -> None:
        self.found.append(node)


def own_returns(node: cst.CSTNode) -> List[cst.Return]:
    """The `return` statements under `node` (a function's body, a block), in order, not those of
    functions, classes or lambdas nested in it."""
    visitor = _OwnReturns()
    walk(node, visitor)
    return visitor.found


def parse_stage(text: str, config) -> cst.BaseStatement:
    """One statement written as source (by the synthesiser, a rule); a blank line it starts with
    is blank at any indentation (it carries none)."""
    stmt = cst.parse_statement(text, config)
    if not stmt.leading_lines:
        return stmt
    return stmt.with_changes(leading_lines=[line.with_changes(indent=False) if line.comment is None else line
                                            for line in stmt.leading_lines])


def as_module_indents(text: str, indent: str) -> str:
    """Source written with four spaces a level (synth's, a sibling method's) indented as the
    module indents, `indent` a level."""
    return "\n".join(re.sub(r"^((?:    )+)", lambda m: indent * (len(m.group(1)) // 4), line)
                     for line in text.split("\n"))


def parse_class_member(text: str, indent: str, module: cst.Module) -> cst.BaseStatement:
    """The statement of `text` (a def at the left margin, written as the module indents) as a
    member of a class whose body indents by `indent`, parsed as the module is."""
    indented = "".join((indent + line if line.strip() else line) for line in text.splitlines(True))
    return cst.parse_module("class _:\n" + indented, config=module.config_for_parsing).body[0].body.body[0]


def argument(call: cst.Call, keyword: str, position: Optional[int] = None) -> Optional[cst.BaseExpression]:
    """The value a call passes as `keyword=`, or as its positional argument `position`; None if neither."""
    for index, arg in enumerate(call.args):
        if (arg.keyword is not None and arg.keyword.value == keyword) or (arg.keyword is None and index == position):
            return arg.value
    return None


def param_names(function: cst.FunctionDef) -> List[str]:
    """Every name the function's parameters bind: positional-only, plain, keyword-only, * and **."""
    params = function.params
    named = list(params.posonly_params) + list(params.params) + list(params.kwonly_params) + [
        p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return [p.name.value for p in named]


def fresh_name(node: cst.CSTNode, base: str) -> str:
    """`base`, else `base_2`, `base_3`, ...: the first name that `node` (a scope) neither reads,
    binds nor defines a function of, at any depth."""
    uses = name_uses(node)
    used = set(uses.loads) | uses.stores | {f.name.value for f in nodes_of(node, (cst.FunctionDef,))}
    name, number = base, 2
    while name in used:
        name, number = "%s_%d" % (base, number), number + 1
    return name


def single_assign(stmt: cst.BaseStatement) -> Optional[Tuple[cst.BaseExpression, cst.BaseExpression]]:
    """(target, value) for a line holding exactly `target = value`, else None."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            return small.targets[0].target, small.value
    return None


def single_small(stmt: cst.BaseStatement) -> Optional[cst.BaseSmallStatement]:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        return stmt.body[0]
    return None


def is_docstring(stmt: cst.BaseStatement) -> bool:
    """Whether the statement is a string literal alone on its line (a docstring where it comes first)."""
    small = single_small(stmt)
    return isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))


def statement_value(stmt: cst.BaseStatement) -> Optional[cst.BaseExpression]:
    """The expression of `x = E`, `return E` or a bare `E` line."""
    small = single_small(stmt)
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        return small.value
    if isinstance(small, (cst.Return, cst.Expr)):
        return small.value
    return None


def with_leading(stmt: cst.BaseStatement, extra: Iterable[cst.EmptyLine]) -> cst.BaseStatement:
    extra = list(extra)
    if not extra:
        return stmt
    return stmt.with_changes(leading_lines=list(stmt.leading_lines) + extra)


class _Comments(cst.CSTVisitor):
    def __init__(self):
        self.comments: List[cst.Comment] = []

    def visit_Comment(self, node: cst.Comment) -> None:
        self.comments.append(node)


def comments_in(node: cst.CSTNode) -> List[cst.EmptyLine]:
    """Every comment inside a node (above it, within it, after it), as standalone lines in order."""
    collector = _Comments()
    walk(node, collector)
    return [cst.EmptyLine(comment=comment) for comment in collector.comments]


class _Calls(cst.CSTVisitor):
    def __init__(self):
        self.calls: List[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)


def calls_of(node: cst.CSTNode) -> List[cst.Call]:
    collector = _Calls()
    walk(node, collector)
    return collector.calls


class _AttributeLoads(cst.CSTVisitor):
    def __init__(self):
        self.names: Set[str] = set()
        self._stores: Set[int] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        targets = [node.target]
        while targets:
            target = targets.pop()
            if isinstance(target, (cst.Tuple, cst.List)):
                targets += [e.value for e in target.elements]
            elif isinstance(target, cst.Attribute):
                self._stores.add(id(target))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if id(node) not in self._stores:
            self.names.add(node.attr.value)


def attribute_loads(node: cst.CSTNode) -> Set[str]:
    """Attribute names read anywhere in a node (`x.key` read, not assigned, gives `key`)."""
    collector = _AttributeLoads()
    walk(node, collector)
    return collector.names


class StatementTransformer(cst.CSTTransformer):
    """A transformer whose hooks are on statements only: it does not go into expressions or small
    statements (whose own hooks still run), so it costs time in proportion to the statements.
    `reach` (ids of statements_holding's), if given: it goes only into the statements on the
    way to those its hooks change (hooks still run on every statement it passes).

    Subtrees it does not enter come back as they were (the same nodes, not copies).
    """

    reach: Optional[Set[int]] = None

    def on_visit(self, node: cst.CSTNode) -> bool:
        return super().on_visit(node) and holds_statements(node) and (
            self.reach is None or id(node) in self.reach)


def statements_holding(node: cst.CSTNode, ids: Set[int]) -> Set[int]:
    """The ids of `node` and the statement containers under it that are, or hold, a node whose
    id is in `ids` (statements and their direct parts: nothing inside an expression is looked at)."""
    out: Set[int] = set()
    _holding(node, ids, out)
    return out


def _holding(node: cst.CSTNode, ids: Set[int], out: Set[int]) -> bool:
    found = id(node) in ids
    if holds_statements(node) and type(node) is not cst.SimpleStatementLine:
        for name in _child_fields(type(node)):
            value = getattr(node, name)
            for child in value if type(value) in (tuple, list) else (value,):
                if (_IS_NODE.get(type(child)) or _is_node(type(child))) and _holding(child, ids, out):
                    found = True
    if found:
        out.add(id(node))
    return found


class _Rename(cst.CSTTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def leave_Name(self, original_node, updated_node):
        new = self.mapping.get(original_node.value)
        return updated_node.with_changes(value=new) if new else updated_node

    def leave_Attribute(self, original_node, updated_node):
        return updated_node.with_changes(attr=original_node.attr)  # `x.name` keeps its attribute

    def leave_Arg(self, original_node, updated_node):
        return updated_node.with_changes(keyword=original_node.keyword)  # keywords are not variables


def rename(node: cst.CSTNode, mapping) -> cst.CSTNode:
    """The node with the variables named in `mapping` renamed (attributes and keywords untouched)."""
    return node.visit(_Rename(mapping))


class _Replace(cst.CSTTransformer):
    def __init__(self, old, new):
        self.old, self.new = old, new

    def on_leave(self, original_node, updated_node):
        if original_node is self.old:
            return self.new
        return super().on_leave(original_node, updated_node)


def plain_get_next(node: cst.CSTNode) -> bool:
    """Whether the node is a call `X.get_next()`, given nothing but maybe its op's `name=` (the
    batching's name, synth.next_element)."""
    return (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "get_next"
            and all(arg.keyword is not None and arg.keyword.value == "name" for arg in node.args))


def replace_node(root: cst.CSTNode, old: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    return root.visit(_Replace(old, new))


class _SimpleStatements(cst.CSTVisitor):
    def __init__(self, root: cst.CSTNode):
        self.root = root
        self.found: List[cst.SimpleStatementLine] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.root

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        self.found.append(node)
        return False


def simple_statements(root: cst.CSTNode) -> List[cst.SimpleStatementLine]:
    """A function's (or module's) simple statements in source order, in its nested blocks too,
    without those of the functions or classes it defines."""
    finder = _SimpleStatements(root)
    walk(root, finder)
    return finder.found


class _Functions(cst.CSTVisitor):
    def __init__(self):
        self.functions: List[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)


def functions_in(node: cst.CSTNode) -> List[cst.FunctionDef]:
    """Every function defined in a node, nested ones too."""
    collector = _Functions()
    walk(node, collector, statements_only=True)  # a def is a statement: none hides in an expression
    return collector.functions


def nodes_of(root: cst.CSTNode, kinds) -> List[cst.CSTNode]:
    """Every node of the given class(es) under root (root included), in source order: libcst's
    visiting order, pre-order. Tokens (whitespace, commas, brackets) hold only tokens: their
    subtrees are not entered unless a token class is asked for."""
    found = []
    tokens = any(issubclass(token, kinds) for token in _TOKENS)
    hits: Dict[type, bool] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        kind = type(node)
        hit = hits.get(kind)
        if hit is None:
            hit = hits[kind] = issubclass(kind, kinds)
        if hit:
            found.append(node)
        below = children(node, tokens)
        below.reverse()
        stack.extend(below)
    return found


# What may leave a block before its end: control flow out of it, or a pause of a generator.
LEAVING = (cst.Return, cst.Raise, cst.Break, cst.Continue, cst.Yield, cst.Await)
# What may run its body more than once: a loop, a function made on the spot, a comprehension.
REPEATING = (cst.For, cst.While, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def attribute_repeated(root: cst.CSTNode, attr: str) -> Optional[cst.Attribute]:
    """The first `x.<attr>` under root inside a loop, lambda or comprehension (None: none is)."""
    finder = _RepeatedAttribute(attr)
    walk(root, finder)
    return finder.found


class _RepeatedAttribute(cst.CSTVisitor):
    """One walk: the first `x.<attr>` (in source order) with a REPEATING node around it."""

    def __init__(self, attr: str):
        self.attr, self.found, self._depth = attr, None, 0

    def _enter(self, node) -> bool:
        self._depth += 1
        return self.found is None

    def _leave(self, node) -> None:
        self._depth -= 1

    visit_For = visit_While = visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = \
        visit_GeneratorExp = _enter
    leave_For = leave_While = leave_Lambda = leave_ListComp = leave_SetComp = leave_DictComp = \
        leave_GeneratorExp = _leave

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if self._depth and self.found is None and node.attr.value == self.attr:
            self.found = node
        return self.found is None


def if_chain(stmt: cst.If) -> Tuple[List[cst.BaseSuite], List[cst.BaseExpression], bool]:
    """The arms of `if`/`elif`.../`else` (their blocks), the tests, and whether no `else` ends it."""
    blocks_, tests = [], []
    node = stmt
    while True:
        blocks_.append(node.body)
        tests.append(node.test)
        if isinstance(node.orelse, cst.If):
            node = node.orelse
            continue
        if isinstance(node.orelse, cst.Else):
            blocks_.append(node.orelse.body)
            return blocks_, tests, False
        return blocks_, tests, True


class Bindings(cst.CSTVisitor):
    """Names bound in a function (visit the FunctionDef): `own[name]` counts its own bindings
    (parameters included), `nested` holds those bound in scopes nested in it (functions, lambdas,
    classes, comprehensions), `declared` its global and nonlocal names."""

    def __init__(self):
        self.depth = -1
        self.own: Dict[str, int] = {}
        self.nested: Set[str] = set()
        self.declared: Set[str] = set()

    def _bind(self, name: str) -> None:
        if self.depth == 0:
            self.own[name] = self.own.get(name, 0) + 1
        elif self.depth > 0:
            self.nested.add(name)

    def _targets(self, target: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            self._bind(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._targets(element.value)
        elif isinstance(target, cst.StarredElement):
            self._targets(target.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._bind(node.name.value)
        self.depth += 1

    def leave_FunctionDef(self, node) -> None:
        self.depth -= 1

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._bind(node.name.value)
        self.depth += 1

    leave_ClassDef = leave_FunctionDef

    def _enter(self, node) -> None:
        self.depth += 1

    visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _enter
    leave_Lambda = leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = leave_FunctionDef

    def visit_Param(self, node: cst.Param) -> None:
        self._bind(node.name.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._targets(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._targets(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._targets(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._targets(node.target)

    def visit_Global(self, node: cst.Global) -> None:
        self.declared.update(item.name.value for item in node.names)

    visit_Nonlocal = visit_Global

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:  # `import a.b` binds `a`
            head = node.name
            while isinstance(head, cst.Attribute):
                head = head.value
            self._bind(head.value)


def own_bindings(function: cst.FunctionDef) -> Set[str]:
    """The names that are the function's own locals: its parameters and what its body binds
    outside nested scopes, but for its `global` and `nonlocal` names."""
    bindings = Bindings()
    walk(function, bindings)
    return set(bindings.own) - bindings.declared


class _BlockIndents(cst.CSTVisitor):
    def __init__(self, default: str):
        super().__init__()
        self.default = default
        self.counts = Counter()

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.counts[node.indent if node.indent is not None else self.default] += 1


class _ExplicitIndents(StatementTransformer):
    def __init__(self, default: str):
        super().__init__()
        self.default = default

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        return updated.with_changes(indent=self.default) if updated.indent is None else updated


def with_usual_indent(module: cst.Module) -> cst.Module:
    """`module`, written the same, whose default indent (the one new blocks get) is the one most of
    its blocks use. libcst takes the first block's, and a file that opens with a two-space helper
    before four-space classes would get two-space code among its four-space methods. The blocks
    using the old default say so explicitly; the module is returned as it was if that would change
    a byte of it."""
    counter = _BlockIndents(module.default_indent)
    walk(module, counter, statements_only=True)
    if not counter.counts:
        return module
    usual, uses = counter.counts.most_common(1)[0]
    if usual == module.default_indent or uses <= counter.counts[module.default_indent]:
        return module
    changed = module.visit(_ExplicitIndents(module.default_indent)).with_changes(default_indent=usual)
    return changed if changed.code == module.code else module


def kept_apart(original: Sequence[cst.BaseStatement], body: Sequence[cst.BaseStatement],
               removed: Dict[int, bool]) -> Sequence[cst.BaseStatement]:
    """`body`, the statements of the block `original` less the removed ones (`removed`: id of a
    removed statement -> whether a blank line opened it), with that blank line before the
    statement that follows them, unless it opens the block or has one already: the code around
    what went stays in its paragraphs. `body` itself when it is not `original` less those one for
    one (a statement replaced by several), or nothing of this block went."""
    survivors = sum(1 for stmt in original if id(stmt) not in removed)
    if survivors != len(body) or survivors == len(original):
        return body
    body, at, blank = list(body), 0, False
    for stmt in original:
        if id(stmt) in removed:
            blank = blank or removed[id(stmt)]
            continue
        if blank and at and not opened_by_blank_line(body[at]):
            body[at] = body[at].with_changes(leading_lines=[cst.EmptyLine(indent=False)] + list(body[at].leading_lines))
        blank, at = False, at + 1
    return body


def block_copy(stmt: cst.BaseStatement, first: bool) -> cst.BaseStatement:
    """A copy of `stmt` to insert in another block; as the block's `first` statement, with its
    comments but without the blank lines before them."""
    copy = stmt.deep_clone()
    if first:
        copy = copy.with_changes(leading_lines=[line for line in copy.leading_lines if line.comment is not None])
    return copy


def opened_by_blank_line(stmt: cst.BaseStatement) -> bool:
    """Whether a blank line is among the lines above the statement."""
    return any(line.comment is None for line in stmt.leading_lines)

