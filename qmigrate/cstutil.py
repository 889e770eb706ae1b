"""Small, TF-agnostic helpers over libcst trees: names read and written, statement shapes."""
from typing import Iterable, List, Optional, Set, Tuple

import libcst as cst


class _NameUses(cst.CSTVisitor):
    def __init__(self):
        self.loads: List[str] = []
        self.stores: Set[str] = set()
        self.mutated: Set[str] = set()  # `x.attr = ...` / `x[i] = ...` store into x
        self.control: Set[str] = set()  # return / yield / break / continue / global / nonlocal
        self._nested = 0  # inside a def (or class) of the node: its control flow is its own

    def _store_target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.stores.add(target.value)
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
            target.value.visit(self)
            if isinstance(target, cst.Subscript):
                for element in target.slice:
                    element.visit(self)

    def visit_Assign(self, node: cst.Assign) -> bool:
        for target in node.targets:
            self._store_target(target.target)
        node.value.visit(self)
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        self._store_target(node.target)
        node.target.visit(self)
        node.value.visit(self)
        return False

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        self._store_target(node.target)
        if node.value is not None:
            node.value.visit(self)
        return False

    def visit_For(self, node: cst.For) -> None:
        self._store_target(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._store_target(node.target)

    def visit_AsName(self, node: cst.AsName) -> bool:
        self._store_target(node.name)
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            self.stores.add(alias.asname.name.value if alias.asname else dotted_head(alias.name))
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                self.stores.add(alias.asname.name.value if alias.asname else dotted_head(alias.name))
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stores.add(node.name.value)
        self._nested += 1

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._nested -= 1

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.stores.add(node.name.value)
        self._nested += 1

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._nested -= 1

    def _flow(self, what: str) -> None:
        if not self._nested:
            self.control.add(what)

    def visit_Param(self, node: cst.Param) -> bool:
        if node.default is not None:
            node.default.visit(self)
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # the attribute name itself is not a variable
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # the keyword is not a variable
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.loads.append(node.value)

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

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self._flow("nonlocal")


def name_uses(node: cst.CSTNode) -> _NameUses:
    """Names a node reads (with multiplicity), binds, mutates, and the control flow it holds
    (outside the functions it defines: their `return` is their own)."""
    uses = _NameUses()
    node.visit(uses)
    return uses


def dotted_head(node: cst.BaseExpression) -> str:
    """`a` for the expression `a.b.c`."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else ""


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
    node.visit(collector)
    return [cst.EmptyLine(comment=comment) for comment in collector.comments]


class _Calls(cst.CSTVisitor):
    def __init__(self):
        self.calls: List[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)


def calls_of(node: cst.CSTNode) -> List[cst.Call]:
    collector = _Calls()
    node.visit(collector)
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
    node.visit(collector)
    return collector.names


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


def replace_node(root: cst.CSTNode, old: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    return root.visit(_Replace(old, new))


class _Functions(cst.CSTVisitor):
    def __init__(self):
        self.functions: List[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)


def functions_in(node: cst.CSTNode) -> List[cst.FunctionDef]:
    """Every function defined in a node, nested ones too."""
    collector = _Functions()
    node.visit(collector)
    return collector.functions


class _Nodes(cst.CSTVisitor):
    def __init__(self, kinds):
        self.kinds, self.found = kinds, []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, self.kinds):
            self.found.append(node)
        return True


def nodes_of(root: cst.CSTNode, kinds) -> List[cst.CSTNode]:
    """Every node of the given class(es) under root, in source order."""
    collector = _Nodes(kinds)
    root.visit(collector)
    return collector.found
