"""Every rule's own examples, through the whole engine: docs cannot claim what the tests do not show.

`pytest -k QM301` runs one rule's examples.
"""
import libcst as cst
import pytest

from qmigrate import api
from qmigrate.diagnostics import Safety
from qmigrate.engine import Options
from qmigrate.rules import ALL_RULES

CASES = [(rule, index, example) for rule in ALL_RULES for index, example in enumerate(rule.examples)]


def test_every_rule_has_an_example_and_the_doc_sections():
    for rule in ALL_RULES:
        assert rule.examples, rule.code
        doc = rule.__doc__
        for section in ("## Why", "## Fix safety", "## Limitations"):
            assert section in doc, (rule.code, section)


def test_codes_are_unique_and_each_name_has_one_rule():
    codes = [rule.code for rule in ALL_RULES]
    assert len(codes) == len(set(codes))
    names = [name for rule in ALL_RULES for name in rule.names]
    assert len(names) == len(set(names))


def run_example(example, tmp_path):
    """An example through the whole tool, as a file on its own."""
    path = tmp_path / example.filename
    path.write_text(example.before)
    for filename, source in example.companions:
        (tmp_path / filename).write_text(source)
    results = api.migrate([str(path)] + [str(tmp_path / name) for name, _ in example.companions],
                          Options(unsafe=example.unsafe))
    return results[0]


@pytest.mark.parametrize("rule,index,example", CASES, ids=["%s-%d" % (r.code, i) for r, i, _ in CASES])
def test_rule_example(rule, index, example, tmp_path):
    result = run_example(example, tmp_path)
    # A file with no queue API name is skipped unread by the analysis: its bytes are those on disk.
    output = (result.new_source or result.old_source or (tmp_path / example.filename).read_bytes()).decode()
    codes = {d.code: d for d in result.diagnostics}
    assert rule.code in codes, "the rule's own example does not trigger it"
    assert output == (example.before if example.after is None else example.after)
    cst.parse_module(output)
    expect_fixed = example.after is not None and (rule.safety is Safety.SAFE or example.unsafe)
    assert codes[rule.code].fixed == expect_fixed


def test_rules_reference_in_docs_is_current():
    """docs/rules.md is generated from the rules; regenerate with `python -m qmigrate.rules_doc`."""
    import os

    from conftest import ROOT
    from qmigrate.rules_doc import reference

    with open(os.path.join(ROOT, "docs", "rules.md"), encoding="utf-8") as handle:
        assert handle.read() == reference()


def _alias_spellings(rule, source: str):
    """How the example reaches the rule's names, where not as `tf.<the public path>`."""
    import ast

    from qmigrate.names import ImportMap, ast_dotted, canonical

    tree = ast.parse(source)
    imports = ImportMap(tree=tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            spelled = ast_dotted(node.func)
            resolved = imports.resolve_dotted(spelled) if spelled else None
            if resolved and canonical(resolved) in rule.names and not spelled.startswith("tf."):
                found.append(spelled)
    return found


@pytest.mark.parametrize("rule", [r for r in ALL_RULES if r.names], ids=lambda r: r.code)
def test_every_rule_has_an_example_through_an_alias(rule):
    """Users write `tflow.train.batch`, `from tensorflow.train import shuffle_batch`, `io_ops.X`:
    each rule shows (and so tests) at least one such spelling."""
    spellings = [s for example in rule.examples if example.filename.endswith(".py")
                 for s in _alias_spellings(rule, example.before)]
    assert spellings, "%s has no example that reaches its API through an alias" % rule.code
