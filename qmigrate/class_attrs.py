"""`self.attr` def-use within one class: which attributes are bound once, where, and who reads them.

A pipeline split across methods keeps its queue objects on `self` (`self.reader = tf.TFRecordReader()`
in `__init__`, `self.reader.read(queue)` in `batch()`). Such an attribute is a name like any other
when the class binds it in exactly one statement, nothing else stores into it, and every read of it
can be seen. This module answers those questions for the recogniser; it never rewrites anything.

Contract:
- A method's `self` is the first positional parameter of a function defined directly in the class
  body (not a staticmethod or classmethod). Code in nested functions of a method counts as the
  method's (a closure reading `self.attr` is a read).
- `binding(attr)` is the attribute's only binding, or raises NotProven with the reason: bound in
  several statements, bound by something other than a one-target assignment, bound inside an
  `if`/loop/`try`, bound in the class body or outside the class, or read or stored where this module
  cannot see (`self` handed to other code, `setattr`, another object's `.attr` in the module).
- Other modules are not seen: an attribute read from another file (`model.reader.reset()`) is
  not known here. The recogniser only relies on this for readers and queues, whose only legal use
  in the legacy API is the `read()` it rewrites.
"""
import ast
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Set, Tuple

import libcst as cst

from qmigrate import blocks, cstutil, wording
from qmigrate.names import dotted

_NOT_METHODS = ("staticmethod", "classmethod")


class NotProven(Exception):
    """What about an attribute cannot be proven; the text says why (a clause for a diagnostic)."""


@dataclass(frozen=True)
class Binding:
    """`self.attr = value`, the attribute's one binding."""

    attr: str
    method: cst.FunctionDef
    statement: cst.BaseStatement
    value: cst.BaseExpression
    # Set by a migration that gives the attribute another value or none (held_sources.py): the
    # statements that stand where the binding was (remove_bindings), whatever still reads it
    # in the class as the rewriter sees it (a method migrated later stops reading it); () removes it.
    replacement: Optional[Tuple[cst.BaseStatement, ...]] = None


@dataclass
class _Use:
    method: cst.FunctionDef
    node: cst.Attribute
    kind: str  # "load" | "store" | "bind": a load, a store into it (`self.a[i] =`, `self.a.b =`), a binding
    plain: bool = True  # a load that only takes the value (not `self.a.b`, `self.a[i]`, `self.a(...)`)
    statement: Optional[cst.BaseStatement] = None  # for a binding: the statement holding it


@dataclass
class ClassAttrs:
    """The attribute uses of one class (see the module docstring)."""

    cls: cst.ClassDef
    line_of: Callable[[cst.CSTNode], int]
    methods: Dict[str, cst.FunctionDef] = field(default_factory=dict)
    self_names: Dict[int, str] = field(default_factory=dict)  # id(method) -> its self parameter
    uses: Dict[str, List[_Use]] = field(default_factory=dict)
    # Why some reads cannot be seen (self handed on): (reason with a %d for the line, node), worded
    # when asked for (a line costs a position pass over the module).
    escapes: List[Tuple[str, cst.CSTNode]] = field(default_factory=list)
    class_level: Set[str] = field(default_factory=set)  # names bound in the class body itself
    foreign: Dict[str, cst.Attribute] = field(default_factory=dict)  # attr -> a `.attr` use outside the class
    foreign_count: Counter = field(default_factory=Counter)  # attr -> how many such uses
    foreign_lines: Dict[str, int] = field(default_factory=dict)  # attr -> the line of such a use (stdlib tree)

    def self_name(self, method: cst.FunctionDef) -> Optional[str]:
        return self.self_names.get(id(method))

    def loads(self, attr: str) -> List[_Use]:
        return [use for use in self.uses.get(attr, ()) if use.kind == "load"]

    def binding(self, attr: str) -> Binding:
        """The attribute's single binding; NotProven (with the reason) otherwise."""
        if self.escapes:
            reason, node = self.escapes[0]
            raise NotProven(reason % self.line_of(node))
        if attr in self.class_level:
            raise NotProven("`%s` is also bound in the body of class %s" % (attr, self.cls.name.value))
        if self.foreign_count[attr]:
            line = self.foreign_lines.get(attr) or self.line_of(self.foreign[attr])
            raise NotProven("`.%s` is also used outside class %s (line %d)" % (attr, self.cls.name.value, line))
        uses = self.uses.get(attr, [])
        binds = [use for use in uses if use.kind == "bind"]
        stores = [use for use in uses if use.kind == "store"]
        if stores:
            raise NotProven("`self.%s` is changed in place at line %d" % (attr, self.line_of(stores[0].node)))
        if not binds:
            raise NotProven("`self.%s` is never bound in class %s" % (attr, self.cls.name.value))
        if len(binds) > 1:
            raise NotProven("`self.%s` is assigned in several places (lines %s)" % (
                attr, ", ".join(str(self.line_of(use.node)) for use in binds)))
        use = binds[0]
        statement = use.statement
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
            else None
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and small.targets[0].target is use.node):
            raise NotProven("`self.%s` is bound at line %d by something other than a one-target assignment"
                            % (attr, self.line_of(use.node)))
        method = use.method
        top = blocks.flatten(method.body.body, method.body.body) if isinstance(method.body, cst.IndentedBlock) else []
        if not any(leaf.original is statement for leaf in top):
            raise NotProven("`self.%s` is bound at line %d inside an if, loop or try, so whether it is bound "
                            "depends on the run" % (attr, self.line_of(use.node)))
        return Binding(attr, method, statement, small.value)

    def bound_before(self, attr: str, method: cst.FunctionDef, statement: cst.BaseStatement) -> Binding:
        """The binding of an attribute read at `statement` of `method` (the binding method of a value
        moved elsewhere), proven to be made before that statement runs and never changed after:
        bound once, in `__init__`, before `statement` if that is in `__init__` too; never the base
        of an attribute, subscript or call (`self.files.append(f)` would change a list it holds).
        A function it is handed to could still change such a list in place: not seen here.
        NotProven otherwise."""
        binding = self.binding(attr)
        if binding.method.name.value != "__init__" or self.methods.get("__init__") is not binding.method:
            raise NotProven("`self.%s` is bound in %s(), not in __init__" % (attr, binding.method.name.value))
        impure = [use for use in self.loads(attr) if not use.plain]
        if impure:
            raise NotProven("`self.%s` is used at line %d in a way that may change it" % (
                attr, self.line_of(impure[0].node)))
        if method is binding.method and not _runs_before(method, binding.statement, statement):
            raise NotProven("`self.%s` is bound after line %d" % (attr, self.line_of(statement)))
        return binding

    def uses_of(self, attr: str) -> int:
        """How often `attr` is named as an attribute of this object (its own `self.attr`, and
        `x.attr` anywhere in the module but on the `self` of an unrelated class)."""
        return len(self.uses.get(attr, ())) + self.foreign_count[attr]

    def method_of(self, function: cst.FunctionDef) -> bool:
        return id(function) in self.self_names


def _runs_before(method: cst.FunctionDef, first: cst.BaseStatement, second: cst.BaseStatement) -> bool:
    """Whether `first` and `second` are top-level statements (through `with`s) of the method, in
    that order."""
    leaves = [leaf.original for leaf in blocks.flatten(method.body.body, method.body.body)]
    try:
        return leaves.index(first) < leaves.index(second)
    except ValueError:
        return False


class ModuleClasses:
    """The ClassAttrs of a module's top-level classes, made when first asked for; the module's
    attributes are walked once for all of them. `imported`: names the module binds by import,
    whose attributes (`csv.reader`) are no object's."""

    def __init__(self, module: cst.Module, line_of: Callable[[cst.CSTNode], int], imported: Set[str] = frozenset(),
                 tree: Optional[ast.Module] = None):
        self.module, self.line_of, self.imported, self.tree = module, line_of, imported, tree
        self._own: Dict[int, ClassAttrs] = {}  # id(class) -> its own uses
        self._done: Set[int] = set()  # classes whose uses outside them are counted too
        self._attributes: Optional[List[cst.Attribute]] = None

    def of(self, cls: cst.ClassDef) -> ClassAttrs:
        attrs = self._own_uses(cls)
        if id(cls) in self._done:
            return attrs
        self._done.add(id(cls))
        if self.tree is not None:
            self._foreign_from_tree(attrs)
            return attrs
        inside = _use_ids(attrs)
        # `self.attr` in the methods of an unrelated class of the module is another object's attribute.
        related = related_classes(cls, self.module)
        for other in self.module.body:
            if isinstance(other, cst.ClassDef) and other is not cls and other.name.value not in related:
                inside |= _use_ids(self._own_uses(other))
        if self._attributes is None:
            self._attributes = [node for node in _attributes(self.module)
                                if not (isinstance(node.value, cst.Name) and node.value.value in self.imported)]
        for node in self._attributes:
            if id(node) not in inside:
                attrs.foreign.setdefault(node.attr.value, node)
                attrs.foreign_count[node.attr.value] += 1
        return attrs

    def _foreign_from_tree(self, attrs: ClassAttrs) -> None:
        """The uses outside the class, found on the stdlib tree (several times faster to walk):
        every `x.attr` of the module but the module imports', and the `self.attr` of the class's
        own methods and of unrelated classes' (a `self` rebound by a nested function is taken for
        the method's own, here and in _SelfUses alike)."""
        related = related_classes(attrs.cls, self.module)
        mine: Set[int] = set()
        for node in self.tree.body:
            if isinstance(node, ast.ClassDef) and (node.name == attrs.cls.name.value or node.name not in related):
                for method in node.body:
                    self_name = _ast_self(method)
                    for inner in ast.walk(method) if self_name is not None else ():
                        if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) \
                                and inner.value.id == self_name:
                            mine.add(id(inner))
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Attribute) and id(node) not in mine and not (
                    isinstance(node.value, ast.Name) and node.value.id in self.imported):
                attrs.foreign_count[node.attr] += 1
                attrs.foreign_lines.setdefault(node.attr, node.lineno)

    def _own_uses(self, cls: cst.ClassDef) -> ClassAttrs:
        if id(cls) not in self._own:
            self._own[id(cls)] = _own_uses(cls, self.line_of)
        return self._own[id(cls)]


def _ast_self(method) -> Optional[str]:
    """The `self` parameter of a method on the stdlib tree (None for a static or class method)."""
    if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    if any(getattr(d, "id", None) in _NOT_METHODS for d in method.decorator_list):
        return None
    params = list(getattr(method.args, "posonlyargs", [])) + list(method.args.args)
    return params[0].arg if params else None


def _use_ids(attrs: ClassAttrs) -> Set[int]:
    return {id(use.node) for uses in attrs.uses.values() for use in uses}


def _own_uses(cls: cst.ClassDef, line_of: Callable[[cst.CSTNode], int]) -> ClassAttrs:
    """The uses of `self.attr` in the class's own methods, and the names its body binds."""
    attrs = ClassAttrs(cls, line_of)
    if not isinstance(cls.body, cst.IndentedBlock):
        return attrs
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef):
            decorators = {getattr(d.decorator, "value", None) for d in stmt.decorators}
            params = stmt.params.posonly_params or stmt.params.params
            attrs.methods.setdefault(stmt.name.value, stmt)
            if decorators & set(_NOT_METHODS) or not params:
                continue
            attrs.self_names[id(stmt)] = params[0].name.value
            collector = _SelfUses(attrs, stmt, params[0].name.value)
            cstutil.walk(stmt.body, collector)
        else:
            attrs.class_level |= _class_level_names(stmt)
    return attrs


def overridden(cls: cst.ClassDef, method: str, module: cst.Module) -> bool:
    """Whether a class of the module that `cls` inherits from, or that inherits from it, defines
    `method` too (a call `self.method()` may reach that one)."""
    related = related_classes(cls, module) - {cls.name.value}
    return any(isinstance(other, cst.ClassDef) and other.name.value in related and isinstance(
        other.body, cst.IndentedBlock) and any(isinstance(m, cst.FunctionDef) and m.name.value == method
                                               for m in other.body.body) for other in module.body)


def related_classes(cls: cst.ClassDef, module: cst.Module) -> Set[str]:
    """Names of the module's classes that inherit from `cls` or that it inherits from, at any depth
    (their `self` may be the same object); a class whose bases are not plain names relates to all."""
    classes = {stmt.name.value: stmt for stmt in module.body if isinstance(stmt, cst.ClassDef)}
    bases = {}
    for name, node in classes.items():
        names = [cstutil.dotted_head(arg.value) if isinstance(arg.value, cst.Name) else None for arg in node.bases]
        bases[name] = set(names)
    related, changed = {cls.name.value}, True
    while changed:
        changed = False
        for name, parents in bases.items():
            if name in related:
                new = {p for p in parents if p in classes} - related
            elif parents & related or None in parents:
                new = {name}
            else:
                new = set()
            if new:
                related |= new
                changed = True
    return related


def _class_level_names(stmt: cst.BaseStatement) -> Set[str]:
    return set(cstutil.name_uses(stmt).stores)


class _Attributes(cst.CSTVisitor):
    def __init__(self):
        self.found: List[cst.Attribute] = []

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.found.append(node)

    def visit_Import(self, node) -> bool:
        return False  # `import a.b` names a module, not an attribute of an object

    visit_ImportFrom = visit_Import


def _attributes(node: cst.CSTNode) -> List[cst.Attribute]:
    collector = _Attributes()
    cstutil.walk(node, collector)
    return collector.found


class _SelfUses(cst.CSTVisitor):
    """Every `self.attr` of one method, classified; a bare `self` anywhere but `super(C, self)` is an escape."""

    def __init__(self, attrs: ClassAttrs, method: cst.FunctionDef, self_name: str):
        self.attrs, self.method, self.self_name = attrs, method, self_name
        self.stack: List[cst.CSTNode] = []
        self.statement: Optional[cst.BaseStatement] = None
        self.shadowed = 0  # inside a nested def/lambda that rebinds the self name

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.SimpleStatementLine):
            self.statement = node
        if isinstance(node, (cst.FunctionDef, cst.Lambda)) and self._rebinds_self(node):
            self.shadowed += 1
        self.stack.append(node)
        if isinstance(node, cst.Name) and node.value == self.self_name and not self.shadowed:
            self._bare_or_attribute(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()
        if isinstance(original_node, (cst.FunctionDef, cst.Lambda)) and self._rebinds_self(original_node):
            self.shadowed -= 1

    def _rebinds_self(self, node) -> bool:
        params = node.params
        names = [p.name.value for p in list(params.posonly_params) + list(params.params) + list(params.kwonly_params)]
        return self.self_name in names

    def _bare_or_attribute(self, node: cst.Name) -> None:
        parent = self.stack[-2] if len(self.stack) > 1 else None
        if isinstance(parent, cst.Attribute) and parent.value is node:
            self._classify(parent)
            return
        if isinstance(parent, (cst.Param,)) or (isinstance(parent, cst.Attribute) and parent.attr is node):
            return
        if isinstance(parent, cst.Arg) and len(self.stack) > 2 and isinstance(self.stack[-3], cst.Call) \
                and getattr(self.stack[-3].func, "value", None) == "super":
            return  # super(Class, self): the base class's methods, not this object's attributes
        if isinstance(parent, cst.AssignTarget) or isinstance(parent, (cst.Tuple, cst.List)) and any(
                isinstance(n, cst.AssignTarget) for n in self.stack[-4:-2]):
            self.attrs.escapes.append(("`%s` is rebound at line %%d" % self.self_name, node))
            return
        self.attrs.escapes.append(("`%s` itself is handed to other code at line %%d, which may read or set any "
                                   "attribute" % self.self_name, node))

    def _classify(self, node: cst.Attribute) -> None:
        attr = node.attr.value
        parents = self.stack[:-2]  # above the Attribute
        parent = parents[-1] if parents else None
        uses = self.attrs.uses.setdefault(attr, [])
        if self._is_target(node, parents):
            uses.append(_Use(self.method, node, "bind", statement=self.statement))
            return
        if isinstance(parent, cst.AugAssign) and parent.target is node:
            uses.append(_Use(self.method, node, "store"))
            return
        if isinstance(parent, cst.Del) or (isinstance(parent, (cst.Attribute, cst.Subscript))
                                           and parent.value is node and self._is_target(parent, parents[:-1])):
            uses.append(_Use(self.method, node, "store"))
            return
        plain = not (isinstance(parent, (cst.Attribute, cst.Subscript)) and parent.value is node
                     or isinstance(parent, cst.Call) and parent.func is node)
        uses.append(_Use(self.method, node, "load", plain=plain))

    @staticmethod
    def _is_target(node, parents) -> bool:
        """Whether `node` is (an element of) an assignment's target, or a for/with/comprehension target."""
        child = node
        for parent in reversed(parents):
            if isinstance(parent, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
                child = parent
                continue
            if isinstance(parent, cst.AssignTarget):
                return parent.target is child
            if isinstance(parent, cst.AnnAssign):
                return parent.target is child
            if isinstance(parent, (cst.For, cst.CompFor)):
                return parent.target is child
            if isinstance(parent, cst.AsName):
                return parent.name is child
            return False
        return False


def remove_bindings(cls: cst.ClassDef, bindings) -> cst.ClassDef:
    """`cls` (rewritten) without the statements `self.<attr> = ...` of `bindings` whose attribute
    nothing in the class reads any more (a reader or producer whose one read a pipeline took over),
    or with the binding's `replacement` in their place when it has one.
    Comments above a removed statement stay, on the statement after it (at the end of the method
    when it was the last, or on a `pass` that keeps an emptied method valid)."""
    body = list(cls.body.body)
    collector = _Targets()
    cstutil.walk(cls, collector)
    for binding in bindings:
        attr = binding.attr
        if binding.replacement is None and any(
                node.attr.value == attr and id(node) not in collector.ids for node in _attributes(cls)):
            continue  # still read: it stays
        for position, stmt in enumerate(body):
            if not (isinstance(stmt, cst.FunctionDef) and stmt.name.value == binding.method.name.value):
                continue
            params = stmt.params.posonly_params or stmt.params.params
            if not params or not isinstance(stmt.body, cst.IndentedBlock):
                continue
            target = "%s.%s" % (params[0].name.value, attr)
            leaves = blocks.flatten(stmt.body.body, stmt.body.body)
            for index, leaf in enumerate(leaves):
                assign = cstutil.single_assign(leaf.updated)
                if assign is None or dotted(assign[0]) != target:
                    continue
                if binding.replacement:  # its new value, the comments above it staying there
                    first = binding.replacement[0].with_changes(leading_lines=leaf.updated.leading_lines)
                    replacements = {leaf.path: [first] + list(binding.replacement[1:])}
                    new_body = blocks.rebuild(stmt.body.body, replacements, set())
                    body[position] = stmt.with_changes(body=stmt.body.with_changes(body=new_body))
                    break
                comments = wording.moved_comments(leaf.updated, leading_only=True)
                replacements = {leaf.path: []}
                after = leaves[index + 1] if index + 1 < len(leaves) else None
                if comments and after is not None:  # even out of a `with` the removal may empty
                    replacements[after.path] = [cstutil.with_leading(after.updated, comments)]
                    comments = []
                new_body = blocks.rebuild(stmt.body.body, replacements, set())
                footer = list(stmt.body.footer)
                if not new_body:
                    new_body = [cstutil.with_leading(cst.SimpleStatementLine([cst.Pass()]), comments)]
                elif comments:  # it was the method's last statement: they close the method
                    footer = comments + footer
                body[position] = stmt.with_changes(body=stmt.body.with_changes(body=new_body, footer=footer))
                break
            break
    return cls.with_changes(body=cls.body.with_changes(body=body))


class _Targets(cst.CSTVisitor):
    """The whole targets of assignments (bindings, not reads)."""

    def __init__(self):
        self.ids: Set[int] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.ids.add(id(node.target))

