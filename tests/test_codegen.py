"""Module text made from top-level statements generated before (codegen, statement_memo): the same
text as libcst's, and a verification that still catches a rewrite that does not parse."""
import ast
import pathlib

import libcst as cst
import pytest

from qmigrate import codegen, engine, statement_memo

TESTDATA = pathlib.Path(__file__).resolve().parent.parent / "testdata"
SOURCES = sorted(TESTDATA.rglob("*.py"))


class _Copy(cst.CSTTransformer):
    """Makes every node anew, as a transformer does for the nodes it enters."""


@pytest.fixture
def counted(monkeypatch):
    calls = []
    compute = codegen._TEXTS._compute

    def counting(statement, layout):
        calls.append(statement)
        return compute(statement, layout)

    monkeypatch.setattr(codegen._TEXTS, "_compute", counting)
    statement_memo.forget_all()
    yield calls
    statement_memo.forget_all()


def test_the_testdata_is_there():
    assert len(SOURCES) > 100


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(TESTDATA)))
def test_module_code_is_libcsts_text_and_generated_once(path, counted):
    module = cst.parse_module(path.read_bytes())
    assert codegen.module_code(module) == module.code
    assert codegen.module_bytes(module) == module.bytes
    generated = len(counted)
    assert generated == (len(module.body) if module.has_trailing_newline else 0)
    copy = module.visit(_Copy())
    assert all(new is not old for new, old in zip(copy.body, module.body))
    assert codegen.module_code(copy) == module.code
    assert len(counted) == generated  # the same trees, made anew: nothing generated again


def test_a_changed_statement_is_generated_and_alone_in_the_changed_text(counted):
    old = cst.parse_module("import os\n\n\ndef f(x):\n    return x + 1\n\n\ndef g(y):\n    return y\n")
    changed = old.body[1].with_deep_changes(old.body[1].body.body[0].body[0].value, right=cst.Integer("2"))
    new = old.with_changes(body=[old.body[0], changed, old.body[2].visit(_Copy())])
    assert codegen.module_code(old) == old.code
    assert codegen.module_code(new) == new.code
    assert counted[-1] is changed and len(counted) == 4
    assert codegen.changed_text(old, new) == "\n\ndef f(x):\n    return x + 2\n"
    assert codegen.changed_text(old, old.visit(_Copy())) == ""


def test_a_module_without_a_final_newline_is_libcsts_text(counted):
    module = cst.parse_module("x = 1\ny = 2")
    assert codegen.module_code(module) == "x = 1\ny = 2"
    assert not counted


def test_the_layout_is_part_of_a_statements_text():
    four = cst.parse_module("def f():\n    return 1\n")
    tabs = four.with_changes(default_indent="\t", body=[four.body[0].visit(_Copy())])
    assert codegen.module_code(four) == four.code
    assert codegen.module_code(tabs) == tabs.code != four.code


def test_verify_still_refuses_a_rewrite_that_does_not_parse(tmp_path):
    source = b"import tensorflow as tf\n\n\ndef f(x):\n    return x\n\n\ndef g(y):\n    return y\n"
    analysis = engine.analyse(str(tmp_path / "m.py"), source, engine.Options())
    assert analysis.tree is not None
    broken = cst.SimpleStatementLine(body=[cst.Expr(cst.Name("def"))])  # `def` alone: no Python parses it
    analysis.new_module = analysis.module.with_changes(body=list(analysis.module.body[:2]) + [broken])
    problem = engine.verify(analysis)
    assert problem is not None and "does not parse" in problem
    analysis.new_module = analysis.module.visit(_Copy())
    assert engine.verify(analysis) is None


def test_a_memo_past_its_bound_still_gives_each_statements_fact():
    memo = statement_memo.StatementMemo(lambda statement, _: cst.Module(body=[]).code_for_node(statement), limit=2)
    module = cst.parse_module("a = 1\nb = 2\nc = 3\nd = 4\n")
    for _ in range(2):
        assert [memo.get(s) for s in module.visit(_Copy()).body] == ["a = 1\n", "b = 2\n", "c = 3\n", "d = 4\n"]


def test_verify_parses_all_of_a_module_that_started_from_a_move(tmp_path):
    """A module qmigrate moved statements in before its analysis (method_queues) was never parsed
    from a file: what it shares with the result is parsed too."""
    source = b"import tensorflow as tf\n\n\ndef f(x):\n    return x\n"
    analysis = engine.analyse(str(tmp_path / "m.py"), source, engine.Options())
    broken = cst.SimpleStatementLine(body=[cst.Expr(cst.Name("def"))])
    analysis.module = analysis.module.with_changes(body=list(analysis.module.body) + [broken])
    analysis.new_module = analysis.module.with_changes(body=list(analysis.module.body) + [cst.parse_statement("x = 1\n")])
    assert engine.verify(analysis) is None  # a parse of a file: only the new statement is parsed
    analysis.queues_moved = True
    problem = engine.verify(analysis)
    assert problem is not None and "does not parse" in problem


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(TESTDATA)))
def test_the_texts_cut_from_a_file_are_libcsts(path):
    source = path.read_bytes()
    module = cst.parse_module(source)
    texts = codegen.source_texts(module, source, ast.parse(source))
    if not module.body or not module.has_trailing_newline:
        assert texts is None
    else:
        assert texts == [module.code_for_node(statement) for statement in module.body]


# Shapes where a statement's text starts or ends somewhere other than its own lines: comments
# before, between and after decorators and blocks, at the block's indent or the module's, the
# header and footer, `;`, one-line compound statements, CRLF, form feeds, strings over lines.
CUT = [
    "# header\n\n\nimport os  # trailing\n\n\n# owned by f\n@dec  # on dec\n# between\n@ dec2(\n  1)\ndef f():\n"
    "    x = 1\n    # the block's footer\n  # deeper than the module\n# the module's: g's\n\ndef g(): return 1\n"
    "a = 1; b = 2\nif a: b = 3\nelse:\n    pass\n    # in else\n\n# footer\n\n",
    "x = '''\nnot # a comment\n'''\n(\n  y\n) = 1\nclass A: pass; z = 2\n\x0c\ndef h():\n    pass\n",
    "import os\r\n\r\n# c\r\ndef f():\r\n    return 1\r\n# end\r\n",
    "def f():\n\tif x:\n\t\treturn 1\n\n\n\n# c \\\nx = 1\n",
    "@a\n@b\nclass C:\n    '''doc'''\n\n    def m(self):\n        pass\n    # last\n",
    "a = (1,\n     2); b = 3\nc = 4\n",  # the stdlib's second statement starts on the line the first ends on
]


@pytest.mark.parametrize("source", CUT)
def test_the_texts_cut_from_unusual_layouts_are_libcsts(source):
    module = cst.parse_module(source)
    texts = codegen.source_texts(module, source.encode(), ast.parse(source))
    assert texts == [module.code_for_node(statement) for statement in module.body]


@pytest.mark.parametrize("source", [
    "x = 1\ry = 2\n",  # a lone carriage return: the stdlib and a split on "\n" count lines apart
    "x = 1; \\\ny = 2\n",  # `;` continued on the next line: one statement for libcst, two first lines
])
def test_a_cut_that_is_not_certain_gives_nothing(source):
    module = cst.parse_module(source)
    assert codegen.source_texts(module, source.encode(), ast.parse(source)) is None


def test_statements_remembered_from_their_file_are_never_generated(counted):
    source = b"import os\n\n\ndef f(x):\n    return x + 1\n\n\ndef g(y):\n    return y\n"
    module = cst.parse_module(source)
    codegen.remember_source(module, source, ast.parse(source))
    changed = module.body[1].with_deep_changes(module.body[1].body.body[0].body[0].value, right=cst.Integer("2"))
    new = module.visit(_Copy()).with_changes(body=[module.body[0], changed, module.body[2].visit(_Copy())])
    assert codegen.module_code(module) == source.decode()
    assert codegen.module_code(new) == new.code
    assert counted == [changed]


@pytest.mark.parametrize("name", ["single/cifar10_binary.before.py", "towers/common/cifar10_input.py"])
def test_a_rewrite_keeps_the_statements_it_does_not_change_as_they_were(name):
    """Not copies: the texts, name counts and verification of every version then find them by
    identity (and a rewrite does not copy the simple statements it leaves alone)."""
    source = (TESTDATA / name).read_bytes()
    analysis = engine.analyse(name, source, engine.Options())
    old, new = analysis.module, analysis.new_module
    assert new is not old
    unchanged = [s for s in new.body if any(statement_memo.same_tree(s, o) for o in old.body)]
    assert unchanged and len(unchanged) < len(new.body)
    assert all(any(s is o for o in old.body) for s in unchanged)
