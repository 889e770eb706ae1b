"""The shape every rule shares: a code, the canonical names it claims, a safety, docs, examples."""
import inspect
import textwrap
from dataclasses import dataclass
from typing import Callable, Dict, Optional, Tuple, Union

import libcst as cst

from qmigrate.diagnostics import Safety


@dataclass(frozen=True)
class Example:
    """`before` through the tool gives `after` (None: left unchanged); the rule always reports it.

    `unsafe`: run with --unsafe. The rule's finding counts as fixed when there is an `after` and
    the rule is safe or the example runs with --unsafe. `companions` are migrated in the same run
    (rules about what one module means for another); only `before` is checked against `after`.
    """

    before: str
    after: Optional[str] = None
    unsafe: bool = False
    filename: str = "example.py"
    companions: Tuple[Tuple[str, str], ...] = ()  # other files of the same run: (filename, source)


class Unsupported(Exception):
    """A construct's arguments fall outside what the model can represent; the text says why."""


class Rule:
    """One legacy construct. Subclasses set the attributes and describe themselves in the docstring.

    `signature` lists the construct's parameters in TensorFlow's positional order so that calls
    are read the same way whichever arguments were passed by position.
    """

    code: str = ""
    names: Tuple[str, ...] = ()
    safety: Safety = Safety.SAFE
    signature: Tuple[str, ...] = ()
    message: str = ""
    advice: str = ""
    examples: Tuple[Example, ...] = ()
    note: bool = False  # informational: reported, asks for no change, never fails a check

    @classmethod
    def message_for(cls, name: Optional[str]) -> str:
        """The finding's text for one occurrence (by the canonical name it was called through)."""
        return cls.message

    @classmethod
    def reason_for(cls, name: Optional[str]) -> Optional[str]:
        """Why an occurrence is never rewritten, for rules that rewrite nothing; else None."""
        return None

    @classmethod
    def advice_for(cls, name: Optional[str]) -> str:
        return cls.advice

    @classmethod
    def summary(cls) -> str:
        return inspect.getdoc(cls).splitlines()[0]

    @classmethod
    def bind(cls, call: cst.Call) -> Dict[str, cst.BaseExpression]:
        """Arguments by parameter name. Raises Unsupported for *args/**kwargs or unknown names."""
        bound: Dict[str, cst.BaseExpression] = {}
        for position, arg in enumerate(call.args):
            if arg.star:
                raise Unsupported("it passes arguments with * or **, which cannot be read statically")
            if arg.keyword is None:
                if position >= len(cls.signature):
                    raise Unsupported("it passes more positional arguments than TensorFlow accepts")
                bound[cls.signature[position]] = arg.value
            else:
                if arg.keyword.value not in cls.signature:
                    raise Unsupported("it passes `%s=`, which this API does not take" % arg.keyword.value)
                bound[arg.keyword.value] = arg.value
        return bound


def literal_bool(node: Optional[cst.BaseExpression], default: bool, what: str) -> bool:
    """The value of a True/False literal; Unsupported for anything computed."""
    if node is None:
        return default
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    raise Unsupported("`%s` is computed at run time; qmigrate needs a literal True or False" % what)


class ProducerTest(str):
    """The source of a `shuffle=` test that must be evaluated where the producer stood
    (`a.mode == "train"`): the recogniser binds it to a name of its own there, and the dataset
    tests that name. Never emitted as it is."""


def bool_or_condition(node: Optional[cst.BaseExpression], default: bool, what: str,
                      source: Callable[[cst.CSTNode], str]) -> Union[bool, str]:
    """A True/False literal's value, or the source of a test the caller turns into a Python `if`:
    the producers themselves test their `shuffle` argument with a Python `if` when the graph is
    built, so that is the same test, made once, as before.

    A plain name (`shuffle`), an attribute (`self.is_training`) or a test of names and literals
    (`mode == "train"`) is tested where the dataset is built: the recogniser proves nothing
    rebinds the names, or can reassign the attribute (see `condition_base`), before that. Any other
    test of names, attributes and literals (`a.mode == "train"`, `not FLAGS.eval`) comes back as a
    ProducerTest: evaluated where the producer was, as it was. Calls and subscripts are refused."""
    if node is None or (isinstance(node, cst.Name) and node.value in ("True", "False")):
        return literal_bool(node, default, what)
    if condition_base(node) is not None:
        return source(node)
    bare = node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node
    if is_plain(node):
        return source(bare)
    if is_test(node):
        return ProducerTest(source(bare))
    raise Unsupported("`%s` is computed at run time with a call or subscript; qmigrate needs a literal True or "
                      "False, a name, an attribute, or a test of those (`a.mode == 'train'`)" % what)


def condition_base(node: Optional[cst.BaseExpression]) -> Optional[str]:
    """The name under a plain name or a dotted attribute of one (`self` for `self.is_training`),
    as `bool_or_condition` takes it; None for literals and anything else."""
    while isinstance(node, cst.Attribute):
        node = node.value
    if isinstance(node, cst.Name) and node.value not in ("True", "False", "None"):
        return node.value
    return None


class _PlainTest(cst.CSTVisitor):
    def __init__(self):
        self.plain = True

    def on_visit(self, node) -> bool:
        if isinstance(node, (cst.Attribute, cst.Call, cst.Subscript, cst.Lambda, cst.Await, cst.NamedExpr,
                             cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            self.plain = False
        return self.plain


class _TestOfNames(cst.CSTVisitor):
    def __init__(self):
        self.test = True

    def on_visit(self, node) -> bool:
        if isinstance(node, (cst.Call, cst.Subscript, cst.Lambda, cst.Await, cst.NamedExpr, cst.ListComp,
                             cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.IfExp, cst.FormattedString)):
            self.test = False
        return self.test


def is_test(node: cst.CSTNode) -> bool:
    """Whether an expression reads only names, attributes and literals, through comparisons and
    `and`/`or`/`not` (no call, subscript or lambda): evaluated where it stood, it gives what it gave."""
    test = _TestOfNames()
    node.visit(test)
    return test.test


def is_plain(node: cst.CSTNode) -> bool:
    """Whether an expression reads only names and literals (no attribute, call or subscript): it
    has no side effect and gives the same value wherever it is evaluated while none of its names
    is rebound."""
    plain = _PlainTest()
    node.visit(plain)
    return plain.plain


def bool_or_test(node: Optional[cst.BaseExpression], default: bool, what: str,
                 source: Callable[[cst.CSTNode], str]) -> Union[bool, str]:
    """A True/False literal's value, or the source of a plain test (`final_batch`,
    `num_epochs is not None`) for an argument whose value the rewrite tests with a Python `if`
    where the call stood, so at the same point, with the same names."""
    if node is None or (isinstance(node, cst.Name) and node.value in ("True", "False")):
        return literal_bool(node, default, what)
    if not is_plain(node):
        raise Unsupported("`%s` is computed with an attribute, call or subscript; qmigrate needs a literal True "
                          "or False, or a test of names and literals" % what)
    return source(node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node)


def is_none(node: Optional[cst.BaseExpression]) -> bool:
    return node is None or (isinstance(node, cst.Name) and node.value == "None")


def is_one(node: Optional[cst.BaseExpression]) -> bool:
    return node is None or (isinstance(node, cst.Integer) and node.value == "1")


SourceOf = Callable[[cst.CSTNode], str]


def example_source(text: str) -> str:
    """Example source written indented inside a rule class, as the module text it stands for."""
    return textwrap.dedent(text).lstrip("\n")


class _Fractional(cst.CSTVisitor):
    def __init__(self):
        self.found = False

    def visit_Divide(self, node) -> None:
        self.found = True

    def visit_Float(self, node) -> None:
        self.found = True


def whole(node: cst.BaseExpression, source: SourceOf) -> str:
    """A queue size as a dataset buffer size: wrapped in int() when it may be a float (a Python 2
    `capacity / 2` is one in Python 3). Dataset.shuffle raises on a float (TF 1.8: "Expected
    int64, got 32.0"). A RandomShuffleQueue took its int(); `shuffle_batch` itself failed on one
    under TF 1.8 and 1.15 (measured: `queue.size() - min_after_dequeue` mixes int32 and float)."""
    fractional = _Fractional()
    node.visit(fractional)
    return "int(%s)" % source(node) if fractional.found else source(node)
