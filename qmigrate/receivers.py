"""The class of the object a method is called on, outside that class's own methods: `reader.read(q)`
where `reader = Records()`, `reader = Pipeline().records` (a property returning an attribute
bound once in `__init__` from `Records()`), or a module-level `reader = Records()`.

Contract: `Receivers(module, classes).class_of(receiver, scope)` names a top-level class of the
module only when the object is proven to be an instance of exactly that class (made by calling
it, the class defined once and its name never rebound); it returns None for objects this module
does not follow (a parameter, an import, a call of anything else), and raises Unresolved, whose
text names the attribute or variable, when it gets as far as a class but cannot prove the rest (a
name bound twice, a property that does more than return `self.attr`, an attribute bound more than
once). Other modules are not seen: one that rebinds a module-level instance (`mod.reader = x`)
is not known here. It reads the module and never rewrites anything.

Classes of other modules of the run (`foreign`, by the dotted name the module's imports give
them, each with its own Receivers): `mod.Reader()`, `mod` a name the module binds only by its
import (never in the scope, no star import), is followed into `mod`'s Receivers on the same
terms as a class of this module, and so are the properties of what it makes (`mod.IO().reader`).
What those modules' importers do to them at run time (`mod.Reader = Other`) is not seen either.
"""
from typing import Dict, Optional

import libcst as cst

from qmigrate import class_attrs, cstutil

_DEPTH = 8  # `a = b`, `b = C().p`: how many steps are followed before giving up (None)


class Unresolved(Exception):
    """What about the object cannot be proven; the text says why (a clause for a diagnostic)."""


class _Stores(cst.CSTVisitor):
    """How often a scope binds each name (nested functions and classes: their names, and what
    their `nonlocal` statements may rebind), and the one-target assignments that do."""

    def __init__(self, top: cst.CSTNode):
        self.top = top
        self.count: Dict[str, int] = {}
        self.assigned: Dict[str, cst.Assign] = {}
        self.declared = set()  # `global x` / `nonlocal x` in the scope itself: not its own binding
        self.imported = set()  # names the scope's own import statements bind
        self._depth = 0

    def _add(self, name: str) -> None:
        self.count[name] = self.count.get(name, 0) + 1

    def _targets(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self._add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._targets(element.value)
        elif isinstance(target, cst.StarredElement):
            self._targets(target.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._depth:
            return
        for target in node.targets:
            self._targets(target.target)
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self.assigned[node.targets[0].target.value] = node

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if not self._depth:
            self._targets(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if not self._depth:
            self._targets(node.target)

    def visit_For(self, node: cst.For) -> None:
        if not self._depth:
            self._targets(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        if not self._depth:
            self._targets(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        if not self._depth:
            self._targets(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if not self._depth:
            self._targets(node.target)

    def visit_MatchAs(self, node) -> None:
        if not self._depth and node.name is not None:
            self._targets(node.name)

    def visit_MatchStar(self, node) -> None:
        if not self._depth and node.name is not None:
            self._targets(node.name)

    def visit_Del(self, node: cst.Del) -> None:
        if not self._depth:
            self._targets(node.target)

    def visit_Import(self, node: cst.Import) -> None:
        if not self._depth:
            for alias in node.names:
                if not alias.asname:  # `import a.b as c`: visit_AsName counts `c`
                    self._add(cstutil.dotted_head(alias.name))
                self.imported.add(alias.asname.name.value if alias.asname else cstutil.dotted_head(alias.name))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if self._depth:
            return
        if isinstance(node.names, cst.ImportStar):
            self._add("*")
            return
        for alias in node.names:
            if not alias.asname:
                self._add(cstutil.dotted_head(alias.name))
            self.imported.add(alias.asname.name.value if alias.asname else cstutil.dotted_head(alias.name))

    def visit_Global(self, node: cst.Global) -> None:
        if not self._depth:  # in a nested function it names the module's: Receivers._global_anywhere
            self.declared.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for item in node.names:  # a nested function's may rebind a local of the scope
            (self._add if self._depth else self.declared.add)(item.name.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node is not self.top and not self._depth:
            self._add(node.name.value)
        self._depth += 1

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._depth -= 1

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if not self._depth:
            self._add(node.name.value)
        self._depth += 1

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._depth -= 1

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def _stores(scope: cst.CSTNode) -> _Stores:
    found = _Stores(scope)
    if isinstance(scope, cst.FunctionDef):
        params = scope.params
        for param in list(params.posonly_params) + list(params.params) + list(params.kwonly_params) + [
                p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]:
            found._add(param.name.value)
        cstutil.walk(scope.body, found)
    else:
        cstutil.walk(scope, found)
    return found


class Receivers:
    """class_of for the scopes of one module (each scope's bindings counted once)."""

    def __init__(self, module: cst.Module, classes: class_attrs.ModuleClasses,
                 foreign: Optional[Dict[str, "Receivers"]] = None, imports=None):
        """`foreign`: the Receivers of other modules of the run, by their dotted module name;
        `imports`: this module's names.ImportMap, which says what `mod` in `mod.Reader()` names."""
        self.module = module
        self.classes = classes
        self.foreign = dict(foreign or {}) if imports is not None else {}
        self.imports = imports
        self._scopes: Dict[int, _Stores] = {}
        self._classes = {stmt.name.value: stmt for stmt in module.body if isinstance(stmt, cst.ClassDef)}

    def owns(self, cls: cst.ClassDef) -> bool:
        """Whether `cls` is a top-level class of this module (the very node)."""
        return self._classes.get(cls.name.value) is cls

    def _owner(self, cls: cst.ClassDef) -> "Receivers":
        """The Receivers of the module that defines `cls` (this one, or a foreign one)."""
        return next((other for other in self.foreign.values() if other.owns(cls)), self)

    def _of(self, scope: cst.CSTNode) -> _Stores:
        if id(scope) not in self._scopes:
            self._scopes[id(scope)] = _stores(scope)
        return self._scopes[id(scope)]

    def class_of(self, receiver: cst.BaseExpression, scope: cst.CSTNode,
                 top_level: bool = True) -> Optional[cst.ClassDef]:
        """The top-level class whose exact instance `receiver` (read in `scope`, a function or
        the module) is; None when not followed; Unresolved with the reason when not proven.
        `top_level`: `scope` is a top-level function or method (a nested one may read names of
        the function around it, which are not followed)."""
        return self._class_of(receiver, scope, top_level, _DEPTH)

    def _class_of(self, node, scope, top_level: bool, depth: int) -> Optional[cst.ClassDef]:
        if depth <= 0:
            return None
        if isinstance(node, cst.Name):
            return self._of_name(node.value, scope, top_level, depth)
        if isinstance(node, cst.Call):
            return self._constructed(node, scope)
        if isinstance(node, cst.Attribute):
            owner = self._class_of(node.value, scope, top_level, depth - 1)
            return self._owner(owner)._property(owner, node.attr.value) if owner is not None else None
        return None

    def _of_name(self, name: str, scope, top_level: bool, depth: int) -> Optional[cst.ClassDef]:
        if isinstance(scope, cst.FunctionDef):
            stores = self._of(scope)
            if name in stores.declared and name in stores.count:
                return None  # `global x` and a binding of it here: the module's, changed here
            if name not in stores.count:
                return self._of_name(name, self.module, True, depth) if top_level else None
        stores = self._of(scope)
        count = stores.count.get(name, 0)
        assign = stores.assigned.get(name)
        if assign is None or count == 0 or (isinstance(scope, cst.Module) and "*" in stores.count):
            return None  # a star import may bind it too
        owner = self._class_of(assign.value, scope, top_level, depth - 1)
        if owner is None:
            return None
        if count > 1:
            where = "the module" if isinstance(scope, cst.Module) else "%s()" % scope.name.value
            raise Unresolved("`%s` is bound more than once in %s, so which object it holds depends on the run"
                             % (name, where))
        body = scope.body.body if isinstance(scope, cst.FunctionDef) else scope.body
        if not any(isinstance(stmt, cst.SimpleStatementLine) and assign in stmt.body for stmt in body):
            raise Unresolved("`%s` is bound inside an if, loop, with or try, so whether it holds an instance of "
                             "%s depends on the run" % (name, owner.name.value))
        if isinstance(scope, cst.Module) and self._of(scope).declared | self._global_anywhere(name):
            raise Unresolved("a function rebinds the module's `%s` (global)" % name)
        return owner

    def _global_anywhere(self, name: str) -> set:
        """{name} when some function of the module declares it `global` (it may rebind it)."""
        class _Globals(cst.CSTVisitor):
            found = False

            def visit_Global(self, node: cst.Global) -> None:
                self.found = self.found or any(item.name.value == name for item in node.names)

        visitor = _Globals()
        cstutil.walk(self.module, visitor)
        return {name} if visitor.found else set()

    def _constructed(self, call: cst.Call, scope) -> Optional[cst.ClassDef]:
        """The class a call `C(...)` makes, C a top-level class of the module bound by nothing else,
        with no metaclass and no `__new__` of its own (either may hand back another object); or
        `mod.C(...)`, C such a class of a foreign module."""
        if isinstance(call.func, cst.Attribute):
            return self._foreign_constructed(call, scope)
        if not isinstance(call.func, cst.Name):
            return None
        cls = self._classes.get(call.func.value)
        if cls is None:
            return None
        if isinstance(scope, cst.FunctionDef) and call.func.value in self._of(scope).count:
            return None  # a local of that name
        if self._of(self.module).count.get(call.func.value, 0) != 1 or "*" in self._of(self.module).count:
            return None
        return cls if self._plain(cls, set()) else None

    def _foreign_constructed(self, call: cst.Call, scope) -> Optional[cst.ClassDef]:
        """The class `mod.C(...)` makes: C a class of a foreign module, `mod` bound in this module
        by its import only (not in `scope`, nor by a star import or anything else)."""
        if not self.foreign or not isinstance(call.func.value, cst.Name):
            return None
        head = call.func.value.value
        module_name = self.imports.aliases.get(head)
        other = self.foreign.get(module_name) if module_name else None
        if other is None:
            return None
        if isinstance(scope, cst.FunctionDef) and head in self._of(scope).count:
            return None  # a local of that name
        stores = self._of(self.module)
        if stores.count.get(head, 0) != 1 or head not in stores.imported or "*" in stores.count \
                or self._global_anywhere(head):
            return None  # bound by something else than its one import at the top of the module
        return other._constructed(cst.Call(func=cst.Name(call.func.attr.value)), other.module)

    def _plain(self, cls: cst.ClassDef, seen: set) -> bool:
        """Whether calling the class makes an instance of it whose attributes are found as its
        code defines them: no metaclass, no `__new__`, `__getattribute__` or `__getattr__` of its
        own or of a base, each base `object` or a top-level class of the module (once bound) with
        the same property."""
        if cls.keywords or any(_defines(cls, name) or _binds_in_body(cls, name)
                               for name in ("__new__", "__getattribute__", "__getattr__", "__class__")):
            return False
        seen.add(cls.name.value)
        for base in cls.bases:
            name = base.value.value if isinstance(base.value, cst.Name) and base.keyword is None and not base.star \
                else None
            if name == "object":
                continue
            other = self._classes.get(name) if name is not None else None
            if other is None or name in seen or self._of(self.module).count.get(name, 0) != 1 \
                    or not self._plain(other, seen):
                return False
        return True

    def defines_plainly(self, cls: cst.ClassDef, name: str) -> bool:
        """Whether the class's body defines `name` by one def and binds it by nothing else (the
        method an instance's `.name` finds)."""
        return _defines(cls, name) is not None and not _binds_in_body(cls, name)

    def _property(self, owner: cst.ClassDef, prop: str) -> Optional[cst.ClassDef]:
        """The class of `instance_of_owner.prop`: a property of `owner` that returns `self.attr`,
        that attribute bound once, in `__init__`, from a call of a top-level class."""
        method = _defines(owner, prop)
        if method is None or _binds_in_body(owner, prop):
            return None  # a plain attribute, one of a base class, or rebound in the class body: not followed
        decorators = [cstutil.dotted_head(d.decorator) if isinstance(d.decorator, cst.Name) else None
                      for d in method.decorators]
        if decorators != ["property"]:
            raise Unresolved("`.%s` is not a plain property of class %s" % (prop, owner.name.value))
        returned = _returned_attribute(method)
        if returned is None:
            raise Unresolved("the property %s.%s does more than return an attribute of the object"
                             % (owner.name.value, prop))
        if owner.bases and not (len(owner.bases) == 1 and isinstance(owner.bases[0].value, cst.Name)
                                and owner.bases[0].value.value == "object"):
            raise Unresolved("class %s derives from another class, whose code may set `self.%s` too"
                             % (owner.name.value, returned))
        attrs = self.classes.of(owner)
        try:
            binding = attrs.binding(returned)
        except class_attrs.NotProven as error:
            raise Unresolved("the property %s.%s returns `self.%s`, and %s" % (owner.name.value, prop, returned,
                                                                               error))
        if binding.method is not attrs.methods.get("__init__"):
            raise Unresolved("the property %s.%s returns `self.%s`, bound in %s(), not in __init__" % (
                owner.name.value, prop, returned, binding.method.name.value))
        made = self._constructed(binding.value, binding.method) if isinstance(binding.value, cst.Call) else None
        if made is None:
            raise Unresolved("the property %s.%s returns `self.%s`, which is not bound to a new instance of a "
                             "class of this module" % (owner.name.value, prop, returned))
        return made


def _defines(cls: cst.ClassDef, name: str) -> Optional[cst.FunctionDef]:
    """The class body's own one definition of `name` (None: none, or several)."""
    found = [stmt for stmt in cls.body.body if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name] \
        if isinstance(cls.body, cst.IndentedBlock) else []
    return found[0] if len(found) == 1 else None


def _binds_in_body(cls: cst.ClassDef, name: str) -> bool:
    """Whether a statement of the class body other than a def binds `name` (`read = staticmethod(read)`)."""
    if not isinstance(cls.body, cst.IndentedBlock):
        return True
    return any(name in cstutil.name_uses(stmt).stores for stmt in cls.body.body
               if not isinstance(stmt, cst.FunctionDef))


def _returned_attribute(method: cst.FunctionDef) -> Optional[str]:
    """`attr` when the method's body (a docstring aside) is `return self.attr` alone."""
    params = method.params.params
    if not params or not isinstance(method.body, cst.IndentedBlock):
        return None
    body = list(method.body.body)
    if body and isinstance(cstutil.single_small(body[0]), cst.Expr) and isinstance(
            cstutil.single_small(body[0]).value, (cst.SimpleString, cst.ConcatenatedString)):
        body = body[1:]
    small = cstutil.single_small(body[0]) if len(body) == 1 else None
    value = small.value if isinstance(small, cst.Return) else None
    if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) \
            and value.value.value == params[0].name.value:
        return value.attr.value
    return None
