"""Migrated copies of reader methods that must stay as they are for other callers.

A reader method (`self.read_data(queue)`) called by several pipelines of its class, some of which
stay (a branch qmigrate does not rewrite, say), cannot take the record: those callers still hand
it a queue. The migrated pipelines then call a copy of it that takes the record, defined right
after the original in the same class (`read_data` → `parse_data`); the original is untouched.
"""
from typing import Dict, Set

import libcst as cst

from qmigrate import class_attrs, cstutil, helpers


def copy_names(keep: Dict[str, str], local_callers: str, context, names, module: cst.Module) -> Dict[str, str]:
    """`Class.method` → the name of its migrated copy, for every reader method of a class of this
    module kept only for callers in this file (`keep[name] == local_callers`; a method kept for
    other modules, or for a class deriving from two, may be reached through another class, where
    `self.copy()` would not follow), that reads its queue itself (not through another method) and
    no other reader method forwards its queue to, is not static, that no related class of the
    module defines too, and whose copy's name is free: no name of the module and no attribute
    read anywhere in it. Never raises."""
    # A method another reader method forwards its queue to stays for it: that one, migrated,
    # would hand the original the record (`self.inner(record)` is not renamed to the copy).
    forwarded = {helpers.forwarded_to(other, helper) for other, helper in context.method_helpers.items()
                 if "." in other and helper.via is not None}
    wanted = sorted(name for name in keep if keep[name] == local_callers and "." in name
                    and name in context.method_helpers and name not in context.foreign_classes
                    and name not in context.static_methods and context.method_helpers[name].via is None
                    and name not in forwarded and not _overridden(name, context, module))
    if not wanted:
        return {}
    taken = cstutil.attribute_loads(module) | _method_names(module)
    copies = {}
    for name in wanted:
        preferred = helpers.migrated_name(name.rsplit(".", 1)[1], True)
        copy = preferred
        n = 2
        while copy in taken or copy in names.used:
            copy, n = "%s_%d" % (preferred, n), n + 1
        names.used.add(copy)
        taken.add(copy)
        copies[name] = copy
    return copies


def _overridden(name: str, context, module: cst.Module) -> bool:
    cls = context.method_classes.get(id(context.method_helpers[name].function))
    return cls is None or class_attrs.overridden(cls, name.rsplit(".", 1)[1], module)


def _method_names(module: cst.Module) -> Set[str]:
    """Names of every function defined anywhere in the module (methods included)."""
    return {function.name.value for function in cstutil.functions_in(module)}


class _CallRename(cst.CSTTransformer):
    def __init__(self, method: str, copy: str):
        self.method, self.copy = method, copy

    def leave_Call(self, original_node, updated_node):
        func = updated_node.func
        if isinstance(func, cst.Attribute) and func.attr.value == self.method:
            return updated_node.with_changes(func=func.with_changes(attr=cst.Name(self.copy)))
        return updated_node


def call_copy(statement: cst.CSTNode, method: str, copy: str) -> cst.CSTNode:
    """The statement with its calls `obj.method(...)` made calls of `obj.copy(...)`."""
    return statement.visit(_CallRename(method, copy))
