"""Hostile inputs through --check, --diff and --write: nothing is lost, one bad file never stops a run.

The corpus is made at test time (permissions, links and loops cannot live in git): Python 2
(a print statement libcst refuses, an `except E, e:` it accepts), syntax errors, an empty file, a PEP 263 latin-1 file, a UTF-8 BOM, CRLF line endings, tabs, a
5 MB file, nesting deeper than Python allows, symlinks (to a file, to a folder, in a loop,
dangling), a read-only file, a file without read permission, binary content named .py.
"""
import os
import signal
import stat
import subprocess
import sys

import libcst as cst
import pytest
from click.testing import CliRunner

from qmigrate import api
from qmigrate.cli import main

PIPELINE = (
    "def inputs(files):\n"
    "{i}queue = tf.train.string_input_producer(files)\n"
    "{i}reader = tf.TFRecordReader()\n"
    "{i}_, record = reader.read(queue)\n"
    "{i}return tf.train.batch([record], batch_size=8)\n"
)


def _pipeline(indent="    ", newline="\n"):
    return ("import tensorflow as tf\n\n\n" + PIPELINE.format(i=indent)).replace("\n", newline)


def make_corpus(root):
    """{name: what the run must do with it}: 'migrate', 'fail' (reported, untouched) or 'clean'."""
    files = {
        "latin1.py": (b"# -*- coding: latin-1 -*-\n# caf\xe9 au lait\n" + _pipeline().encode("latin-1"), "migrate"),
        "bom.py": (b"\xef\xbb\xbf" + _pipeline().encode(), "migrate"),
        "crlf.py": (_pipeline(newline="\r\n").encode(), "migrate"),
        "tabs.py": (_pipeline(indent="\t").encode(), "migrate"),
        "executable.py": (b"#!/usr/bin/env python\n" + _pipeline().encode(), "migrate"),
        "py2.py": (b"print 'python 2'\n" + _pipeline().encode(), "fail"),
        # libcst parses this one: only the stdlib parser tells it is not Python 3.
        "py2_except.py": (b"try:\n    import cPickle\nexcept ImportError, error:\n    cPickle = None\n"
                          + _pipeline().encode(), "fail"),
        "syntax.py": (b"def broken(:\n" + _pipeline().encode(), "fail"),
        "deep.py": (_deep(), "fail"),
        "binary.py": (b"\x00\x01\xfftensorflow.train.batch\x00\xfe" * 100, "fail"),
        "empty.py": (b"", "clean"),
        "big.py": (_big(), "clean"),
    }
    for name, (data, _) in files.items():
        (root / name).write_bytes(data)
    os.chmod(root / "executable.py", 0o755)
    readonly = root / "readonly.py"
    readonly.write_bytes(_pipeline().encode())
    os.chmod(readonly, 0o444)
    (root / "folder").mkdir()
    (root / "folder" / "inner.py").write_bytes(_pipeline().encode())
    os.symlink("folder", root / "link_to_folder")  # not followed: inner.py is reached once
    os.symlink("crlf.py", root / "link_to_file.py")
    os.symlink("loop_b.py", root / "loop_a.py")
    os.symlink("loop_a.py", root / "loop_b.py")
    os.symlink("missing.py", root / "dangling.py")
    expect = {name: what for name, (_, what) in files.items()}
    expect.update({"readonly.py": "migrate", "folder/inner.py": "migrate", "link_to_file.py": "migrate",
                   "loop_a.py": "fail", "loop_b.py": "fail", "dangling.py": "fail"})
    if os.geteuid() != 0:  # root reads any file: the permission case only exists for other users
        (root / "unreadable.py").write_bytes(_pipeline().encode())
        os.chmod(root / "unreadable.py", 0)
        expect["unreadable.py"] = "fail"
    return expect


def _deep():
    body = "x = 1\n"
    for _ in range(120):  # CPython's tokenizer stops at 100 levels
        body = "if True:\n" + "".join("    " + line + "\n" for line in body.splitlines())
    return ("import tensorflow as tf\n" + body + "q = tf.train.string_input_producer(['a'])\n").encode()


def _big():
    line = "value_%d = [%d, %d, %d]  # a long, ordinary, generated line of padding\n"
    return "".join(line % (i, i, i, i) for i in range(80000)).encode()  # about 5.5 MB, no queue code


def _snapshot(root):
    out = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            os.chmod(path, os.stat(path).st_mode | stat.S_IRUSR)
            with open(path, "rb") as handle:
                out[os.path.relpath(path, root)] = handle.read()
    return out


@pytest.mark.parametrize("mode", ["--check", "--diff", "--write"])
def test_hostile_corpus_is_reported_and_nothing_is_lost(mode, tmp_path):
    expect = make_corpus(tmp_path)
    before = _snapshot(tmp_path)
    result = CliRunner().invoke(main, [str(tmp_path), mode])
    assert result.exit_code == 2, result.output
    after = _snapshot(tmp_path)
    for name, what in expect.items():
        shown = str(tmp_path / name)
        if what == "fail":
            assert "%s: error: " % shown in result.output, name
        else:
            assert "%s: error" % shown not in result.output, name
        real = os.path.relpath(os.path.realpath(tmp_path / name), tmp_path)
        if real in before and (what != "migrate" or mode != "--write"):
            assert after[real] == before[real], name  # failed, clean, or not written: byte-identical
    for name in ("py2.py", "py2_except.py"):
        assert "%s: error: Python 2 syntax: convert it to Python 3 first" % (tmp_path / name) in result.output
    assert "%s: error: cannot decode: binary content" % (tmp_path / "binary.py") in result.output
    assert ", of which 1 skipped as undecodable or binary." in result.output
    if mode == "--write":
        for name, what in expect.items():
            if what == "migrate":
                real = os.path.realpath(tmp_path / name)
                with open(real, "rb") as handle:
                    data = handle.read()
                assert b"tf.data.Dataset" in data, name
                cst.parse_module(data)
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".qmigrate-")]


def test_written_files_keep_encoding_bom_newlines_tabs_and_mode(tmp_path):
    make_corpus(tmp_path)
    CliRunner().invoke(main, [str(tmp_path), "--write"])
    latin1 = (tmp_path / "latin1.py").read_bytes()
    assert b"caf\xe9" in latin1 and b"tf.data.Dataset" in latin1  # still latin-1, cookie honoured
    latin1.decode("latin-1")
    bom = (tmp_path / "bom.py").read_bytes()
    assert bom.startswith(b"\xef\xbb\xbf") and bom.count(b"\xef\xbb\xbf") == 1
    crlf = (tmp_path / "crlf.py").read_bytes()
    assert b"tf.data.Dataset" in crlf and crlf.count(b"\n") == crlf.count(b"\r\n")
    tabs = (tmp_path / "tabs.py").read_bytes()
    assert b"\n\tdataset = tf.data.Dataset" in tabs and b"\n    " not in tabs
    assert stat.S_IMODE(os.stat(tmp_path / "executable.py").st_mode) == 0o755
    assert stat.S_IMODE(os.stat(tmp_path / "readonly.py").st_mode) == 0o444
    assert os.path.islink(tmp_path / "link_to_file.py")
    second = api.migrate([str(tmp_path)])
    assert not [r.path for r in second if r.changed], "a second run changed a migrated file"


def test_a_terminated_write_leaves_old_or_new_files_and_no_temporary_file(tmp_path):
    """SIGTERM inside the write phase of a --write run over many files (after all of them were
    analysed): every file is old or new, never torn, and no temporary file is left.

    The moment is found by watching, not by the clock (a fraction of an earlier run's time missed
    the write phase on a loaded machine): the files are written in their sorted order, so the
    signal goes as soon as the first one is new, while the others are still being written."""
    source = _pipeline().encode()
    expected = api.migrate([_write(tmp_path / "probe.py", source)])[0].new_source

    def run(name):
        tree = tmp_path / name
        tree.mkdir()
        for index in range(300):
            _write(tree / ("m%03d.py" % index), source)
        return tree, subprocess.Popen([sys.executable, "-m", "qmigrate", str(tree), "--write"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    tree, process = run("uninterrupted")
    process.wait(timeout=300)
    assert all((tree / n).read_bytes() == expected for n in os.listdir(tree))
    outcomes = []
    for attempt in range(5):
        tree, process = run("killed_%d" % attempt)
        first = tree / "m000.py"
        while process.poll() is None and first.read_bytes() == source:
            pass
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=300)
        names = os.listdir(tree)
        assert not [n for n in names if not n.endswith(".py")], names  # no temporary file left
        contents = [(tree / name).read_bytes() for name in names]
        assert all(data in (source, expected) for data in contents)  # each file old or new, never torn
        old, new = contents.count(source), contents.count(expected)
        outcomes.append((old, new))
        if old and new:
            break
    assert any(old and new for old, new in outcomes), "no kill landed while files were being written: %s" % (
        outcomes,)


def _write(path, data):
    path.write_bytes(data)
    return str(path)


def test_output_dir_copies_the_corpus_and_leaves_the_source_untouched(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    expect = make_corpus(source)
    before = _snapshot(source)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, [str(source), "--output-dir", str(out)])
    assert result.exit_code == 2, result.output  # the corpus has files that fail
    assert _snapshot(source) == before  # the source tree is untouched
    copied = _snapshot(out)
    for name, what in expect.items():
        if os.path.islink(source / name):
            assert os.path.islink(out / name) and os.readlink(out / name) == os.readlink(source / name), name
        elif what == "migrate":
            assert b"tf.data.Dataset" in copied[name], name
            cst.parse_module(copied[name])
        else:
            assert copied[name] == before[name], name  # failed or clean: copied as it is
    assert os.path.islink(out / "link_to_folder")
    assert stat.S_IMODE(os.stat(out / "executable.py").st_mode) == 0o755
    assert "inside the source tree" in CliRunner().invoke(main, [str(source), "--output-dir",
                                                                 str(source / "x")]).output


@pytest.mark.parametrize("source,verdict", [
    ("try:\n    pass\nexcept IOError, e:\n    pass\n", "python2"),
    ("print 'x'\n", "python2"),
    ("x = 0777\n", "python2"),
    ("def f(q):\n    if q:\n\treturn q\n    return None\n", "python2"),  # tabs mixed with spaces: TabError
    ("1 = x\n", "not python 3"),  # refused by Python 3, but not for Python 2 syntax
    ("async = 1\n", None),  # valid Python 3.6: `async` became a keyword in 3.7
    ("x = 1\n", None),
])
def test_python3_check_tells_python_2_from_other_refusals(source, verdict):
    from qmigrate import python3_check

    try:
        python3_check.check(source.encode())
        found = None
    except python3_check.NotPython3 as error:
        found = "python2" if error.python2 else "not python 3"
        assert str(error).startswith("Python 2 syntax: convert it to Python 3 first" if error.python2
                                     else "does not parse as Python 3: line 1: ")
    assert found == verdict


def test_a_file_that_does_not_parse_is_reported_at_the_line_python_3_refuses(tmp_path):
    """Tabs mixed with spaces are Python 2's; a bad dedent is neither's. libcst's tokenizer said
    "line 1" for both; the stdlib names the line."""
    path = tmp_path / "tabs.py"
    path.write_bytes(b"import tensorflow as tf\n\n\ndef f(files):\n    q = tf.train.string_input_producer(files)\n"
                     b"    if q is not None:\n\treturn q\n    return None\n")
    result = CliRunner().invoke(main, [str(path), "--check"])
    assert result.exit_code == 2
    assert ("%s: error: Python 2 syntax: convert it to Python 3 first (line 7: inconsistent use of tabs and spaces"
            % path) in result.output
    # Not Python 2 either: CPython's line and reason.
    path.write_bytes(b"import tensorflow as tf\n\n\ndef f(files):\n        q = tf.train.string_input_producer(files)\n"
                     b"    return q\n")
    result = CliRunner().invoke(main, [str(path), "--check"])
    assert result.exit_code == 2
    assert "%s: error: does not parse: line 6: unindent does not match any outer indentation level" % path \
        in result.output


def test_an_enqueue_of_something_other_than_a_list_of_tensors_is_refused_not_a_crash(tmp_path):
    """`queue.enqueue(lambda: [value])` (found by the property test's mutations) is reported with
    what it enqueues; it was an internal error (no `.elements` on a lambda)."""
    import glob

    from conftest import TESTDATA

    sources = [source for source in sorted(glob.glob(os.path.join(TESTDATA, "single", "handbuilt_*.before.py")))
               if ".enqueue([" in open(source).read()]
    assert len(sources) >= 4
    said = 0
    for number, source in enumerate(sources):
        with open(source) as handle:
            text = handle.read()
        path = tmp_path / ("mutant_%d.py" % number)
        path.write_text(text.replace(".enqueue([", ".enqueue(lambda: ["))
        [result] = api.migrate([str(path)])
        assert result.status is not api.Status.FAILED, (source, result.error)
        said += any("not a list, tuple or dict of tensors" in d.message for d in result.diagnostics)
    assert said >= 4  # others are refused earlier, for their own reasons


def test_a_queue_helper_called_under_an_if_that_ends_the_file_is_refused_not_a_crash(tmp_path):
    # Found by test_property: the golden conditional_queue_helper cut off after the helper's call in
    # `if shuffle:` (its records dequeued one at a time, nothing after) crashed the rewrite, which
    # took the `if` for the dequeue statement.
    golden = os.path.join(os.path.dirname(__file__), "..", "testdata", "single", "conditional_queue_helper.before.py")
    with open(golden, encoding="utf-8") as handle:
        lines = handle.read().splitlines(keepends=True)
    end = next(i for i, line in enumerate(lines) if "num_threads=mixing_threads)" in line)
    path = tmp_path / "cut.py"
    path.write_text("".join(lines[:end + 1]), encoding="utf-8")
    result, = api.migrate([str(path)], jobs=1)
    assert result.error is None and not result.changed
    assert any(d.code == "QM101" and "not rewritten" in d.message for d in result.diagnostics)


def test_a_batching_with_an_unknown_keyword_in_an_if_without_else_is_refused_not_a_crash(tmp_path):
    # Found by a longer run of test_property's mutations: the if's arm batching with a keyword the
    # API does not take crashed the check of the path that batches nothing.
    path = tmp_path / "typo.py"
    path.write_text('''import tensorflow as tf


def returned_inputs(files, batch_size, training):
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    parsed = tf.parse_single_example(serialized, {'id': tf.FixedLenFeature([], tf.int64)})
    if training:
        return tf.train.shuffle_batch({'id': parsed['id']}, batch_size, capacity=40, min_after_dequeu=4)
''', encoding="utf-8")
    result, = api.migrate([str(path)], jobs=1)
    assert result.error is None and not result.changed
    assert any("it passes `min_after_dequeu=`, which this API does not take" in d.message for d in result.diagnostics)


def test_a_hand_built_queue_without_a_capacity_is_refused_not_a_crash(tmp_path):
    # Found by a longer run of test_property's mutations (the golden split_queue_arms, a line cut).
    golden = os.path.join(os.path.dirname(__file__), "..", "testdata", "single", "split_queue_arms.before.py")
    with open(golden, encoding="utf-8") as handle:
        text = handle.read()
    path = tmp_path / "cut.py"
    path.write_text(text.replace("            capacity=16 * batch_size,\n", "", 1), encoding="utf-8")
    result, = api.migrate([str(path)], jobs=1)
    assert result.error is None and not result.changed
    assert any(d.code == "QM307" and "not rewritten" in d.message for d in result.diagnostics)


@pytest.mark.parametrize("golden,old,new", [
    # an arm's batching, after per-record code of its own, given a keyword it does not take
    # (session 33's run of the mutations; also before that session)
    ("branch_record_arms", "batch_size, allow_smaller_final_batch=True)", "batch_size, allow_smaller=True)"),
    # a slice producer given a keyword it does not take (session 33's run of the mutations; also
    # before that session)
    ("slices_images", "num_epochs=num_epochs,\n                                                shuffle=False)",
     "num_epochs=num_epochs,\n                                                allow_smaller_final_batch=True)"),
    # a batching that lost its batch_size (records returned by one function, batched by another)
    ("records_through_caller", "                           batch_size=batch_size, num_threads=1, capacity=16, "
                               "dynamic_pad=True,\n", ""),
    # a record source's method called with more arguments than it takes
    ("class_held_queue", "key, width = self._pair()", "key, width = self._pair(x)"),
    # a statement after an arm's batching, per-record code before it: the batching was taken for
    # per-record code and moved into the map function, which left the arm empty
    ("branch_record_arms", "        capacity = 10 * batch_size\n        crop_batch, id_batch = tf.train.batch("
                           "[crop, example_id], batch_size, capacity=capacity)\n",
     "        crop_batch, id_batch = tf.train.batch([crop, example_id], batch_size, capacity=capacity)\n"
     "        capacity = 10 * batch_size\n"),
])
def test_goldens_cut_by_the_property_tests_mutations_are_refused_not_a_crash(tmp_path, golden, old, new):
    # Found by a longer run of test_property's mutations; both crashed before this session too.
    path = os.path.join(os.path.dirname(__file__), "..", "testdata", "single", golden + ".before.py")
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    assert old in text
    mutant = tmp_path / "mutant.py"
    mutant.write_text(text.replace(old, new, 1), encoding="utf-8")
    result, = api.migrate([str(mutant)], jobs=1)
    assert not (result.error or "").startswith("internal error"), result.error


def test_a_docstring_closing_under_the_queue_entry_keeps_its_quotes(tmp_path):
    # Found by a longer run of test_property's mutations (the golden class_reader_method, a line
    # dedented): the queue parameter's entry, rewritten for the record, took the closing quotes,
    # indented under it, for a continuation line (libcst: "String must have matching enclosing quotes").
    path = tmp_path / "reader.py"
    path.write_text('''import tensorflow as tf


def read_example(filename_queue):
    """One example of the files.

    Args:
  filename_queue: the queue of TFRecord file names.
      """
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    return tf.parse_single_example(serialized, features={'x': tf.FixedLenFeature([3], tf.float32)})['x']


def inputs(files, batch_size):
    queue = tf.train.string_input_producer(files)
    x = read_example(queue)
    return tf.train.batch([x], batch_size=batch_size)
''', encoding="utf-8")
    result, = api.migrate([str(path)], jobs=1)
    assert result.error is None and result.changed
    new = result.new_source.decode()
    cst.parse_module(new)
    assert "  serialized: one record read from the files, a scalar string Tensor.\n      \"\"\"\n" in new
