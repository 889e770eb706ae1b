"""A name the per-record code rebinds that is also bound before it: the map function's copy.

In the map function every name the moved per-record code binds is a local (Python's rule), so
`noise = None` outside, then `if c: noise = f(image)` and `if noise is not None: ...` moved into
the function, would leave `noise` unbound there when `c` is false. The function can instead start
from a copy of the outer value under a name of its own (`noise_2 = noise`, every use in the
function renamed), which reads the outer name as a captured one when the function is traced,
where the batch was built.

The copy holds the value the moved code first saw only when (copy_refusal):
- the code is the straight-line body of a function (no loop runs it twice, no other function
  reads a module-level name it rebinds) and the name is not declared `global` or `nonlocal`;
- the name is one of the record path's (tainted): the recogniser has proved that nothing
  outside the moved code reads what the moved code bound (only loads before its first binding,
  which read the outer value, or after a later rebinding);
- every binding of the name outside the moved code before the batch comes before the first
  moved statement that uses it (the function is traced at the batch: a later binding would be
  the one it copies), and no statement that stays in place, in part, uses it;
- the function does not return it (its returned names are the batching's, kept as they are).

A copied outer value is read by the function: the recogniser's stateful-capture check sees it.
"""
from typing import Optional, Sequence

import libcst as cst

from qmigrate import cstutil


def copy_refusal(recogniser, name: str, first: int, moved: Sequence[int], batch_index: int, chain, kept,
                 tainted, map_returns: str) -> Optional[str]:
    """None when the map function may start from a copy of `name`'s outer value; else why not.
    `first`: the first moved leaf that uses the name; `chain`: the leaves that move or go."""
    scope = recogniser.scope
    if not isinstance(scope, cst.FunctionDef) or not recogniser._straight_body:
        return "the code is not the straight-line body of a function"
    for node in cstutil.nodes_of(scope, (cst.Global, cst.Nonlocal)):
        if any(item.name.value == name for item in node.names):
            return "`%s` is declared global or nonlocal" % name
    if name not in tainted:
        return "the moved code does not own `%s`" % name
    if map_returns:
        try:
            returned = cstutil.name_uses(cst.parse_expression("(%s)" % map_returns)).loads
        except cst.ParserSyntaxError:
            return "what the function returns cannot be read"
        if name in returned:
            return "the function returns `%s`" % name
    for index in range(first + 1, batch_index):
        if index not in chain and name in recogniser.uses[index].stores:
            return "it is bound again outside the moved code (line %d) after the moved code first uses it" % (
                recogniser._line_of(index))
    for index in kept:
        uses = recogniser.uses[index]
        if name in uses.stores or name in uses.loads or name in uses.mutated:
            return "a statement that stays in place in part (line %d) uses it" % recogniser._line_of(index)
    return None


def apply(function: cst.FunctionDef, copies: Sequence[str], fresh, config,
          called: Sequence[str] = ()) -> cst.FunctionDef:
    """The map function with each copied name renamed in its body (fresh(name) gives the new
    name) and the body starting with `new = name`, the outer value at trace time; for a `called`
    name (a parameter callers may pass a function that draws: drawn_arguments), `new = name() if
    callable(name) else name`, a draw for each record."""
    if not copies and not called:
        return function
    names = list(copies) + [name for name in called if name not in copies]
    mapping = {name: fresh(name) for name in names}
    body = cstutil.rename(function.body, mapping)
    starts = [cst.parse_statement(("%s = %s() if callable(%s) else %s\n" % (mapping[name], name, name, name)
                                   if name in called else "%s = %s\n" % (mapping[name], name)), config)
              for name in names]
    return function.with_changes(body=body.with_changes(body=starts + list(body.body)))
