"""Linking across modules works on summaries and costs a bounded amount of work per file.

Counts calls, not seconds: a regression that re-parses a module or rebuilds its import map per
name resolved fails here on any machine. Speed itself is measured by bench/link_bench.py.
"""
import ast
import collections
import os
import sys

import libcst as cst
import pytest

from conftest import ROOT
from qmigrate import api, memory, names, towers
from qmigrate.diagnostics import Status
from qmigrate.linking import Linker
from qmigrate.names import ImportMap
from qmigrate.positions import stdlib_tree
from qmigrate.summary import summarise, summarise_source

sys.path.insert(0, os.path.join(ROOT, "bench"))
import link_bench  # noqa: E402  (the benchmark's generator of tower modules)


@pytest.fixture
def counts(monkeypatch):
    """How often the run parses a module, builds an import map, and looks for tower loops."""
    seen = collections.Counter()

    def counting(key, function):
        def counted(*args, **kwargs):
            seen[key] += 1
            return function(*args, **kwargs)
        return counted

    monkeypatch.setattr(cst, "parse_module", counting("parse", cst.parse_module))
    monkeypatch.setattr(names.ImportMap, "__init__", counting("import map", names.ImportMap.__init__))
    monkeypatch.setattr(towers, "find_consumers", counting("tower search", towers.find_consumers))
    return seen


def test_tower_modules_cost_a_bounded_number_of_passes_per_file(counts, tmp_path):
    files = 8
    link_bench.make_tree(str(tmp_path), files, 100)  # every 4th module's towers read the previous module's input
    results = {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)])}
    modules = [r for name, r in sorted(results.items()) if name != "__init__.py"]
    assert [r.status for r in modules] == [Status.MIGRATED] * files, [r.diagnostics for r in modules]
    # Three analyses at most (first pass; again with the link's edits; again without queue
    # runners once no queue is left), each one parse plus one to verify the output. Before
    # summaries, linking one module built ~80 import maps.
    assert counts["parse"] <= 6 * files
    assert counts["import map"] <= 9 * files
    assert counts["tower search"] <= 3 * files
    # The link across files: the wrapper passes each tower's shard on to the other module.
    assert ("return peer.training_inputs_6(data_dir, batch_size, num_shards=num_shards, shard_index=shard_index)"
            in results["mod_0007.py"].new_source.decode())
    assert ("def training_inputs_6(data_dir, batch_size, num_shards=1, shard_index=0):"
            in results["mod_0006.py"].new_source.decode())


SOURCE = b'''import tensorflow as tf
from data import inputs as data_inputs


class Model(object):
    def build(self, files):
        return tf.train.batch([files], 4), helper()


def train(a, b=1):
    x = data_inputs.load(a)
    return x
'''


def test_summary_records_methods_under_their_class():
    tree = stdlib_tree(SOURCE)
    summary = summarise("m.py", SOURCE, tree, ImportMap(tree=tree), {"Model.build": 1, "train": 0},
                        is_queue_api=lambda name: name == "tensorflow.train.batch")
    [model] = summary.classes
    [build] = model.methods
    assert (model.name, build.name, build.pipelines) == ("Model", "build", 1)
    assert build.builds == ("tensorflow.train.batch",)
    assert build.returns == (("tf.train.batch()", "helper()"),)  # as written
    [train] = summary.functions
    assert (train.params, train.calls, train.returns, train.pipelines) == (("a", "b"), ("data_inputs.load",),
                                                                          (("x",),), 0)
    assert dict(summary.imports)["data_inputs"] == "data.inputs"
    assert summarise_source("bad.py", b"def (:\n") is None


def test_module_names_resolve_beside_the_importer_first(tmp_path):
    paths = [os.path.join("a", "data", "inputs.py"), os.path.join("b", "data", "inputs.py"),
             os.path.join("b", "train.py")]
    summaries = {path: summarise_source(path, b"def load(x):\n    return x\n") for path in paths[:2]}
    summaries[paths[2]] = summarise_source(paths[2], b"from data import inputs\n")
    linker = Linker(paths, summaries)
    assert linker.resolve(paths[2], "inputs.load") == (paths[1], "load")
    assert linker.resolve(os.path.join("c", "x.py"), "inputs.load") is None  # not summarised: missing
    assert linker.missing == {os.path.join("c", "x.py")}


def test_a_module_found_in_several_projects_is_the_one_nearest_the_importer():
    from qmigrate.program import ModuleIndex

    alpha, beta = (os.path.join("run", name, "data", "io", "reader.py") for name in ("alpha", "beta"))
    index = ModuleIndex([alpha, beta, os.path.join("elsewhere", "data", "io", "reader.py")])
    assert index.module_file(os.path.join("run", "beta", "tools", "train.py"), "data.io.reader") == beta
    assert index.module_file(os.path.join("run", "alpha", "tools", "train.py"), "data.io.reader") == alpha
    # As near to both: the first in the order given, as before.
    assert index.module_file(os.path.join("run", "train.py"), "data.io.reader") == alpha
    assert index.module_file(os.path.join("run", "beta", "t.py"), "io.reader") == beta


def test_two_projects_in_one_run_link_each_caller_to_its_own_module(tmp_path):
    # Two projects side by side, each a `data/io/reader.py` its `tools/train.py` imports (with
    # `sys.path.append("../")`): beta's caller passes a random op for a parameter the per-record
    # code reads, alpha's a Python number. Before, both callers were linked to the first file
    # ending `data/io/reader.py` (alpha's): alpha's pipeline was refused for beta's call, and
    # beta's migrated although its own caller passes the random op (a map function cannot
    # capture it: the migrated program failed when its iterator was made).
    reader = ("import tensorflow as tf\n\n\ndef next_batch(files, batch_size, scale):\n"
              "    queue = tf.train.string_input_producer(files)\n"
              "    _, value = tf.TFRecordReader().read(queue)\n"
              "    x = tf.parse_single_example(value, {'x': tf.FixedLenFeature([], tf.float32)})['x'] * scale\n"
              "    return tf.train.batch([x], batch_size)\n")
    train = ("import sys\nsys.path.append('../')\nimport tensorflow as tf\nfrom data.io.reader import next_batch\n\n\n"
             "def main(files):\n    batch = next_batch(files, 4, scale=%s)\n    with tf.Session() as sess:\n"
             "        print(sess.run(batch))\n")
    for project, scale in (("alpha", "2.0"), ("beta", "tf.random_uniform([])")):
        (tmp_path / project / "data" / "io").mkdir(parents=True)
        (tmp_path / project / "tools").mkdir()
        (tmp_path / project / "data" / "io" / "reader.py").write_text(reader)
        (tmp_path / project / "tools" / "train.py").write_text(train % scale)
    results = {os.path.relpath(r.path, str(tmp_path)): r for r in api.migrate([str(tmp_path)], jobs=1)}
    alpha, beta = (results[os.path.join(p, "data", "io", "reader.py")] for p in ("alpha", "beta"))
    assert alpha.changed and not alpha.remaining
    assert not beta.changed
    assert all("tools/train.py:8 passes `tf.random_uniform([])`" in d.message for d in beta.remaining)


def test_a_tower_module_is_parsed_and_searched_once(counts, tmp_path):
    """Its second analysis (with the link's edits) starts from what the first one parsed, kept by
    the process that analysed it (here the only one)."""
    files = 8
    link_bench.make_tree(str(tmp_path), files, 100)
    results = api.migrate([str(tmp_path)], jobs=1)
    assert sum(r.status is Status.MIGRATED for r in results) == files
    assert counts["parse"] == files
    assert counts["tower search"] == files
    assert not api._PARSED  # nothing kept once the run is over


def test_a_tower_loop_whose_link_fails_costs_one_analysis(tmp_path, monkeypatch):
    """A module whose only later pass would say why its tower loop stays (its input comes from a
    module of ordinary code: the link fails) takes its first result with that reason, the same
    result as a second analysis gives, with one analysis."""
    link_bench.make_tree(str(tmp_path), 40, 5)  # 2 tower modules (19, 39), each reading ordinary mod 18, 38
    analyses = collections.Counter()
    analyse = api.engine.analyse
    monkeypatch.setattr(api.engine, "analyse",
                        lambda path, *a, **k: analyses.update([os.path.basename(path)]) or analyse(path, *a, **k))
    once = [(r.path, r.status, r.diagnostics, r.new_source) for r in api.migrate([str(tmp_path)], jobs=1)]
    towers_read = {name: count for name, count in analyses.items() if name in ("mod_0019.py", "mod_0039.py")}
    assert towers_read == {"mod_0019.py": 1, "mod_0039.py": 1}
    reasons = [d.message for _, _, diagnostics, _ in once for d in diagnostics if d.code == "QM401"]
    assert len(reasons) == 2 and all("its tower loop cannot be linked: peer_inputs_" in m for m in reasons)
    analyses.clear()
    monkeypatch.setattr(api, "_reason_templates", lambda analysis, consumers: ())  # the second analysis, as before
    twice = [(r.path, r.status, r.diagnostics, r.new_source) for r in api.migrate([str(tmp_path)], jobs=1)]
    assert analyses["mod_0019.py"] == 2
    assert twice == once


def test_a_later_pass_from_a_kept_parse_reuses_what_the_first_found_of_it(tmp_path, monkeypatch):
    """The helper facts of each function (engine._function_facts), its queue calls' positions
    and the names its target lacks are found once per parse, the same as found again."""
    link_bench.make_tree(str(tmp_path), 4, 100)  # 4 tower modules: each analysed twice, from one parse
    found = collections.Counter()
    facts, positions = api.engine._function_facts, api.engine.call_positions
    monkeypatch.setattr(api.engine, "_function_facts",
                        lambda f, i: found.update(["facts " + f.name.value]) or facts(f, i))
    monkeypatch.setattr(api.engine, "call_positions", lambda *a: found.update(["positions"]) or positions(*a))
    kept = [(r.path, r.status, r.diagnostics, r.new_source) for r in api.migrate([str(tmp_path)], jobs=1)]
    assert found["facts train_0"] == 1 and found["positions"] == 4 and max(found.values()) == 4
    monkeypatch.setattr(memory, "KEEP_BELOW_BYTES", 0)  # nothing kept: every pass parses and finds again
    found.clear()
    again = [(r.path, r.status, r.diagnostics, r.new_source) for r in api.migrate([str(tmp_path)], jobs=1)]
    assert found["facts train_0"] == 2 and found["positions"] == 8
    assert again == kept


def test_the_parse_cache_stops_at_the_resident_memory_bound(counts, tmp_path, monkeypatch):
    """Over the bound, nothing more is kept: the later pass parses again, and the results are the
    same as with every parse kept."""
    files = 4
    link_bench.make_tree(str(tmp_path), files, 100)
    kept = [(r.path, r.status, r.diagnostics, r.new_source) for r in api.migrate([str(tmp_path)], jobs=1)]
    assert counts["parse"] == files
    counts.clear()
    monkeypatch.setattr(memory, "KEEP_BELOW_BYTES", 0)
    reparsed = [(r.path, r.status, r.diagnostics, r.new_source) for r in api.migrate([str(tmp_path)], jobs=1)]
    assert counts["parse"] == 2 * files  # first pass, then again with the link's edits
    assert reparsed == kept


def test_the_program_keeps_no_tree_per_file(tmp_path, monkeypatch):
    """Set-level questions (imports, closures, references) keep small answers, not the stdlib trees
    they were read from: memory stays flat in the number of files (a tree is kept only for a file
    parsed again, within a bound: the next test)."""
    from qmigrate import program as program_module

    link_bench.make_tree(str(tmp_path), 8, 100)
    paths = sorted(os.path.join(folder, name) for folder, _, found in os.walk(str(tmp_path)) for name in found)
    program = program_module.Program(paths, api._read_python)
    trees = []
    monkeypatch.setattr(program_module, "stdlib_tree", lambda source: trees.append(stdlib_tree(source)) or trees[-1])
    closures = {path: program.closure(path) for path in paths}
    assert any(len(closure) > 1 for closure in closures.values())  # every 4th module imports the one before
    assert program.references("training_inputs_6", paths[0])
    import gc
    import sys as sys_module
    gc.collect()
    assert all(sys_module.getrefcount(tree) == 3 for tree in trees)  # the list, the loop variable, the call


def test_the_first_referring_file_is_found_without_parsing_the_others(tmp_path, monkeypatch):
    """referring_files() gives what references() counts, file by file, and parses a file only when
    the iteration reaches it: a question that stops at the first (is the function referred to
    anywhere else?) parses one of the files that mention a common name, not all of them."""
    from qmigrate import program as program_module

    (tmp_path / "defines.py").write_text("def read(queue):\n    return queue\n")
    for index in range(6):
        (tmp_path / ("user_%d.py" % index)).write_text("import defines\n\n\ndef f(q):\n    return defines.read(q)\n")
    (tmp_path / "comment.py").write_text("# read the files\nx = 'read'\n")
    paths = sorted(str(path) for path in tmp_path.iterdir())
    defining = str(tmp_path / "defines.py")
    parsed = []
    monkeypatch.setattr(program_module, "stdlib_tree", lambda source: parsed.append(source) or stdlib_tree(source))
    program = program_module.Program(paths, api._read_python)
    first = next(program.referring_files("read", defining))
    # Seven files mention `read`: the first user reached, and comment.py if the set's order put it first.
    assert len(parsed) <= 2 and first[1] == [5]
    everything = program_module.Program(paths, api._read_python)
    by_file = sorted((path, line) for path, lines in everything.referring_files("read", defining) for line in lines)
    assert by_file == everything.references("read", defining) and len(by_file) == 6
    assert everything.refers(str(tmp_path / "user_0.py"), "read") and not everything.refers(
        str(tmp_path / "comment.py"), "read")


def test_imports_of_modules_outside_the_set_are_not_resolved(tmp_path, monkeypatch):
    """An import whose last name is no module file (or package folder) of the set loads nothing of
    it (`tensorflow`, `os.path`): it is not looked up. The others still are, relative ones and
    `import pkg.__init__` too."""
    from qmigrate import program as program_module

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "data.py").write_text("import os.path\nimport tensorflow as tf\n")
    (tmp_path / "main.py").write_text("import os\nimport tensorflow as tf\nfrom pkg import data\nimport pkg\n")
    (tmp_path / "init.py").write_text("import pkg.__init__\n")
    (tmp_path / "pkg" / "model.py").write_text("from . import data\nfrom .data import x\n")
    paths = sorted(str(p) for p in tmp_path.rglob("*.py"))
    program = program_module.Program(paths, api._read_python)
    looked_up = []
    real = program._index.module_file
    monkeypatch.setattr(program._index, "module_file",
                        lambda importer, name: looked_up.append(name) or real(importer, name))
    assert program.imports(str(tmp_path / "main.py")) == {str(tmp_path / "pkg" / "data.py"),
                                                          str(tmp_path / "pkg" / "__init__.py")}
    assert program.imports(str(tmp_path / "pkg" / "model.py")) == {str(tmp_path / "pkg" / "data.py"),
                                                                   str(tmp_path / "pkg" / "__init__.py")}
    assert program.imports(str(tmp_path / "pkg" / "data.py")) == set()
    assert program.imports(str(tmp_path / "init.py")) == {str(tmp_path / "pkg" / "__init__.py")}
    assert not {"os", "os.path", "tensorflow"} & {name.replace(".__init__", "") for name in looked_up}


def test_the_program_keeps_the_trees_of_files_parsed_again_within_a_bound(tmp_path, monkeypatch):
    """A file parsed a second time keeps its tree (the set-level steps ask about the same files),
    while the kept sources stay under TREE_SOURCE_BYTES; over it, every question parses again."""
    from qmigrate import program as program_module

    sources = {}
    for name in ("a", "b"):
        sources[name] = ("import tensorflow as tf\n\n\ndef %s(x):\n    return tf.identity(x)\n" % name).encode()
        (tmp_path / (name + ".py")).write_bytes(sources[name])
    paths = [str(tmp_path / "a.py"), str(tmp_path / "b.py")]
    monkeypatch.setattr(program_module, "TREE_SOURCE_BYTES", len(sources["a"]))
    program = program_module.Program(paths, api._read_python)
    first, second, third = (program.tree(paths[0]) for _ in range(3))
    assert first is not second and second is third
    assert ast_dump(first) == ast_dump(second)
    again = [program.tree(paths[1]) for _ in range(3)]  # a's tree fills the bound: b's are not kept
    assert again[1] is not again[2] and ast_dump(again[1]) == ast_dump(again[2])
    # Nor is a tree kept once the process is over its resident bound (with -j 1 it holds the
    # workers' parses too).
    monkeypatch.setattr(program_module, "TREE_SOURCE_BYTES", 10 * len(sources["a"]))
    monkeypatch.setattr(memory, "KEEP_BELOW_BYTES", 0)
    over = [program.tree(paths[1]) for _ in range(3)]
    assert over[1] is not over[2]


def ast_dump(tree):
    return ast.dump(tree, include_attributes=True)
