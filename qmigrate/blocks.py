"""See a block of statements through its `with` statements, and put it back together after edits.

Legacy pipelines sit inside `with tf.name_scope(...)` / `with tf.device(...)` blocks, often with the
producer outside and the per-record code inside. A *root* block (a module, function, loop, if or try
body) is flattened into *leaves*: its statements, with every `with` block opened up. Edits are keyed
by a leaf's path and applied by `rebuild`, which drops a `with` left empty.
"""
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Dict, List, Sequence, Set, Tuple

import libcst as cst

Path = Tuple[int, ...]


@dataclass(frozen=True)
class Leaf:
    path: Path
    original: cst.BaseStatement
    updated: cst.BaseStatement
    withs: Tuple[cst.With, ...]  # enclosing `with` statements inside the root, outermost first


def _opens(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.With) and isinstance(stmt.body, cst.IndentedBlock)


def flatten(original: Sequence[cst.BaseStatement], updated: Sequence[cst.BaseStatement],
            prefix: Path = (), withs: Tuple[cst.With, ...] = ()) -> List[Leaf]:
    leaves: List[Leaf] = []
    for index, (old, new) in enumerate(zip(original, updated)):
        path = prefix + (index,)
        if _opens(old) and _opens(new):
            leaves += flatten(old.body.body, new.body.body, path, withs + (old,))
        else:
            leaves.append(Leaf(path, old, new, withs))
    return leaves


def _opened_by(with_node: cst.With, inner: List[cst.BaseStatement],
               replacements: Dict[Path, List[cst.BaseStatement]]) -> cst.With:
    """The `with` holding `inner`. Its body does not start with a blank line (it would stand right
    under the header): new code that starts it gives its blank lines to the `with`, where they
    separate it from the code before, unless one is there already; a statement of the body that
    starts it because the ones above it went loses them (they parted it from what went)."""
    first = inner[0]
    lines = list(first.leading_lines)
    blanks = 0
    while blanks < len(lines) and lines[blanks].comment is None:
        blanks += 1
    new = any(first is stmt for stmts in replacements.values() for stmt in stmts)
    moved_up = not new and first is not with_node.body.body[0]
    if (new or moved_up) and blanks:
        inner = [first.with_changes(leading_lines=lines[blanks:])] + list(inner[1:])
        if new and not any(line.comment is None for line in with_node.leading_lines):
            with_node = with_node.with_changes(leading_lines=lines[:blanks] + list(with_node.leading_lines))
    return with_node.with_changes(body=with_node.body.with_changes(body=inner))


def rebuild(updated: Sequence[cst.BaseStatement], replacements: Dict[Path, List[cst.BaseStatement]],
            removed: Set[Path], prefix: Path = ()) -> List[cst.BaseStatement]:
    """The block with leaves replaced or removed; a `with` whose body empties goes too."""
    edited = set(replacements) | removed
    out: List[cst.BaseStatement] = []
    for index, stmt in enumerate(updated):
        path = prefix + (index,)
        if path in replacements:
            out.extend(replacements[path])
        elif path in removed:
            continue
        elif _opens(stmt) and any(p[: len(path)] == path and len(p) > len(path) for p in edited):
            inner = rebuild(stmt.body.body, replacements, removed, path)
            if inner:
                out.append(_opened_by(stmt, inner, replacements))
        else:
            out.append(stmt)
    return out


def regroup(leaves: Sequence[Leaf], keep: Callable[[cst.With], bool], depth: int = 0) -> List[cst.BaseStatement]:
    """The leaves' updated statements, re-wrapped in the enclosing `with`s that `keep` accepts."""
    out: List[cst.BaseStatement] = []
    index = 0
    while index < len(leaves):
        chain = [w for w in leaves[index].withs if keep(w)]
        if len(chain) <= depth:
            out.append(leaves[index].updated)
            index += 1
            continue
        opener = chain[depth]
        group = []
        while index < len(leaves) and opener in [w for w in leaves[index].withs if keep(w)][depth:depth + 1]:
            group.append(leaves[index])
            index += 1
        body = regroup(group, keep, depth + 1)
        out.append(opener.with_changes(leading_lines=[], body=opener.body.with_changes(body=body)))
    return out


def exclusive_loads(parents: Sequence[cst.CSTNode]) -> Counter:
    """The name loads that no run of the block `parents[-1]` is followed or preceded by, in the
    scope `parents[0]` (a module or function; `parents` is the path of nodes from it down to the
    block): those of the other arms of each `if` the block lies in an arm of (an `elif`'s test
    included), when no loop of the scope holds both that `if` and the block. Only one arm of an
    `if` runs each time it runs, so those loads read nothing this block binds, nor does this
    block read what they bind. Nested functions' own locals are not counted (cstutil.scoped_uses)."""
    from collections import Counter

    from qmigrate import cstutil  # late: cstutil imports nothing of this module, but keep blocks light

    found: Counter = Counter()
    for depth in range(len(parents) - 1, 0, -1):
        node, owner = parents[depth], parents[depth - 1]
        if isinstance(owner, (cst.For, cst.While)):
            found = Counter()  # the `if`s inside the loop run again: their other arms may follow this one
        elif isinstance(owner, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            break
        elif isinstance(owner, cst.If) and node is owner.body and owner.orelse is not None:
            found.update(cstutil.scoped_uses(owner.orelse).loads)
        elif isinstance(owner, cst.If) and node is owner.orelse:
            found.update(cstutil.scoped_uses(owner.body).loads)
    return found
