"""Notebooks are migrated through their code cells (qmigrate/notebooks.py): the cells joined in
order are the module the engine migrates; only the cells whose code changes are written back, with
the notebook's JSON laid out as it was; findings point at the lines of the .ipynb file. A notebook
qmigrate cannot write back so is reported (QM002) with the reason and left byte-identical.

A notebook is looked at only when its code cells call a queue API, not when only its bytes pass
the prefilter: a notebook of tf.data code (`dataset.batch(32)`) was flagged and failed --check
(found outside the corpus, in tensorflow/tpu's colab notebooks). Code that does not parse is
looked at when its text may hold queue code, as a Python file's is: 72 notebooks of
GoogleCloudPlatform/training-data-analyst that hold none were reported as holding queue code."""
import json
import os
import subprocess

import pytest
from click.testing import CliRunner

from conftest import ROOT
from qmigrate import api, notebooks
from qmigrate.cli import main
from tfenv import run_tf, tf_python

GOLDEN = os.path.join(ROOT, "testdata", "single", "cifar_notebook.before.ipynb")


def _jupyter(cells) -> str:
    """A notebook as Jupyter writes it (nbformat: indent 1, sorted keys, a final newline)."""
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 2}, sort_keys=True,
                      indent=1, ensure_ascii=False, separators=(",", ": ")) + "\n"


def _code(text, outputs=()):
    lines = text.split("\n")
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": list(outputs),
            "source": [line + "\n" for line in lines[:-1]] + [lines[-1]]}


def _markdown(text):
    return {"cell_type": "markdown", "metadata": {}, "source": [text]}


def _compact(*cells, markdown=""):
    return json.dumps({"nbformat": 4, "cells": [{"cell_type": "markdown", "source": [markdown]}] + [
        {"cell_type": "code", "source": [line + "\n" for line in cell.split("\n")]} for cell in cells]})


@pytest.mark.parametrize("cells,codes", [
    (("import tensorflow as tf", "dataset = tf.data.Dataset.range(10).batch(2)"), []),
    (("import tensorflow as tf\n%matplotlib inline", "q = tf.train.string_input_producer(['a'])"), ["QM101"]),
    (("import tensorflow as tf", "x = (", "tf.train.batch"), ["QM002"]),  # code that does not parse: reported
    # ... unless its text holds no queue API (tensorflow/tpu's colab notebooks were reported as
    # holding queue code: an IPython line alone in a block, and a MonitoredSession, a note's call)
    (("import tensorflow as tf", "x = (", "y = tf.data.Dataset.range(3)"), []),
    (("import tensorflow as tf", "if True:\n    !pip install x\nelse:\n    pass", "tf.data.Dataset.range(3)"), []),
    (("import tensorflow as tf", "with tf.train.MonitoredSession() as sess:\n    pass"), []),
])
def test_only_queue_code_is_looked_at(tmp_path, cells, codes):
    path = tmp_path / "explore.ipynb"
    path.write_text(_compact(*cells, markdown="tf.train.batch is in the prose only"))
    result, = api.migrate([str(path)], jobs=1)
    assert [d.code for d in result.diagnostics] == codes
    assert not result.changed


def test_check_mode_leaves_the_notebook_byte_identical(tmp_path):
    path = tmp_path / "train.ipynb"
    original = open(GOLDEN, "rb").read()
    path.write_bytes(original)
    outcome = CliRunner().invoke(main, ["--check", str(path)])
    assert outcome.exit_code == 1
    assert "train.ipynb:69:23: QM302 [fixed] tf.train.shuffle_batch" in outcome.output
    assert path.read_bytes() == original


def test_only_cells_whose_code_changes_are_written(tmp_path):
    path = tmp_path / "train.ipynb"
    path.write_bytes(open(GOLDEN, "rb").read())
    outcome = CliRunner().invoke(main, ["--write", str(path)])
    assert outcome.exit_code == 0, outcome.output
    before, after = json.load(open(GOLDEN)), json.loads(path.read_text())
    assert path.read_text() == json.dumps(after, sort_keys=True, indent=1, ensure_ascii=False,
                                          separators=(",", ": ")) + "\n"  # laid out as Jupyter writes it
    changed = [index for index, (old, new) in enumerate(zip(before["cells"], after["cells"])) if old != new]
    assert changed == [3, 5, 7, 8]  # the reader helper, the batching, the session and the loop
    for old, new in zip(before["cells"], after["cells"]):
        assert {k: v for k, v in old.items() if k != "source"} == {k: v for k, v in new.items() if k != "source"}
    assert before["metadata"] == after["metadata"]
    loop = "".join(after["cells"][8]["source"])
    assert "        !date\n" in loop  # a shell line in a changed cell comes back as it was
    assert "".join(after["cells"][6]["source"]) == "%%bash\nls /tmp/cifar10_data | head -3"


def test_the_cells_are_the_migration_of_their_script(tmp_path):
    """The new cells, joined, are what the same code migrates to as a script."""
    virtual, why = notebooks.virtual(open(GOLDEN, "rb").read())
    assert virtual is not None, why
    script = tmp_path / "script.py"
    script.write_text(virtual.code)
    migrated, = api.migrate([str(script)])
    notebook = tmp_path / "train.ipynb"
    notebook.write_bytes(open(GOLDEN, "rb").read())
    result, = api.migrate([str(notebook)])
    cells = [cell for cell in json.loads(result.new_source)["cells"] if cell["cell_type"] == "code"]
    expected = notebooks.Virtual(json.loads(result.new_source), virtual.layout, result.new_source).code
    assert [c.code for c in result.diagnostics] == [c.code for c in migrated.diagnostics]
    assert _without_boundaries(expected) == _without_boundaries(migrated.new_source.decode())
    assert len(cells) == len(virtual.cells)


def _without_boundaries(code):
    return "".join(line for line in code.splitlines(keepends=True) if not line.startswith("# qmigrate: cell "))


def test_findings_point_at_the_lines_of_the_notebook_file():
    result, = api.migrate([GOLDEN])
    text = open(GOLDEN).read().splitlines()
    where = {d.code: text[d.line - 1][d.column - 1:] for d in result.diagnostics}
    assert where["QM101"].startswith("tf.train.string_input_producer(files, num_epochs=2)")
    assert where["QM302"].startswith("tf.train.shuffle_batch([image, label]")
    assert where["QM202"].startswith("tf.FixedLengthRecordReader(")
    assert where["QM501"].startswith("tf.train.start_queue_runners(sess=sess, coord=coord)")


def test_a_cell_whose_code_all_goes_stays_empty(tmp_path):
    path = tmp_path / "run.ipynb"
    path.write_text(_jupyter([
        _code("import tensorflow as tf\nfiles = ['a.tfrecords']"),
        _code("queue = tf.train.string_input_producer(files, num_epochs=1)\nreader = tf.TFRecordReader()\n"
              "_, value = reader.read(queue)\nbatch = tf.train.batch([value], 4)"),
        _markdown("Start the queues:"),
        _code("sess = tf.Session()"),
        _code("# Start the queue runners.\ntf.train.start_queue_runners(sess=sess)"),
        _code("print(sess.run(batch))"),
    ]))
    result, = api.migrate([str(path)])
    assert result.changed and not result.remaining
    cells = json.loads(result.new_source)["cells"]
    assert cells[4]["source"] == []
    assert "".join(cells[5]["source"]) == "print(sess.run(batch))"
    assert "make_one_shot_iterator" in "".join(cells[1]["source"])


def test_ipython_lines_come_back_as_they_were(tmp_path):
    """`!shell` and `%magic` lines, their values assigned, a shell line going on after a backslash,
    and one alone in a block (kept there as `pass`) are put aside and come back unchanged."""
    cell = ("import tensorflow as tf\n"
            "files = !ls /data/*.tfrecords\n"
            "if not files:\n"
            "    !gsutil cp gs://bucket/*.tfrecords /data/ \\\n"
            "        --quiet\n"
            "%time\n"
            "queue = tf.train.string_input_producer(files, num_epochs=1)\n"
            "reader = tf.TFRecordReader()\n"
            "_, value = reader.read(queue)\n"
            "batch = tf.train.batch([value], 4)")
    path = tmp_path / "magic.ipynb"
    path.write_text(_jupyter([_code(cell)]))
    virtual, _ = notebooks.virtual(path.read_bytes())
    assert "    pass  # qmigrate: magic 1\n" in virtual.code
    result, = api.migrate([str(path)])
    assert result.changed and not result.remaining
    new = "".join(json.loads(result.new_source)["cells"][0]["source"])
    assert new.startswith("import tensorflow as tf\nfiles = !ls /data/*.tfrecords\nif not files:\n"
                          "    !gsutil cp gs://bucket/*.tfrecords /data/ \\\n        --quiet\n%time\n")
    assert "TFRecordDataset" in new


@pytest.mark.parametrize("new,why", [
    ("# qmigrate: cell 1\nx = 1\n# qmigrate: cell 0\ny = 2\n", "moves the start of code cell 1"),
    ("# qmigrate: cell 0\nimport tensorflow as tf\nfor a in b:\n# qmigrate: cell 1\n    y = 2\n",
     "code cell 1 unable to run on its own"),
    ("# qmigrate: cell 0\nimport tensorflow as tf\n# qmigrate: cell 1\ny = 2\n", "moves an IPython magic line"),
    ("# qmigrate: cell 0\nimport tensorflow as tf\n# qmigrate: magic 0\nz = 3\n", "rewrites the code around the "
                                                                               "start of code cell 2"),
])
def test_a_migration_that_moves_code_across_cells_is_not_written(new, why):
    source = _jupyter([_code("import tensorflow as tf\n%matplotlib inline"), _code("x = 1")]).encode()
    virtual, _ = notebooks.virtual(source)
    assert virtual.code == "# qmigrate: cell 0\nimport tensorflow as tf\n# qmigrate: magic 0\n# qmigrate: cell 1\nx = 1\n"
    rebuilt, problem = virtual.rebuild(new)
    assert rebuilt is None and why in problem
    same, problem = virtual.rebuild(virtual.code)
    assert same == source and not problem


def test_code_that_reads_like_a_marker_is_reported():
    source = _jupyter([_code("import tensorflow as tf\n# qmigrate: cell 1\nq = tf.train.string_input_producer(['a'])")])
    virtual, why = notebooks.virtual(source.encode())
    assert virtual is None and "reads like a marker" in why


def test_a_notebook_laid_out_by_hand_is_reported_and_left_alone(tmp_path):
    path = tmp_path / "hand.ipynb"
    text = _jupyter([_code("import tensorflow as tf\nq = tf.train.string_input_producer(['a'])")]).replace(
        '"metadata": {}', '"metadata": { }')
    path.write_text(text)
    result, = api.migrate([str(path)], write=True)
    assert [d.code for d in result.diagnostics] == ["QM002"]
    assert "not laid out as Jupyter writes it" in result.diagnostics[0].message
    assert path.read_text() == text


def _run_cells(python, notebook: str, data_dir: str):
    """Run a notebook's code cells in order, as Jupyter would, but for its IPython lines; its output."""
    cells = [cell for cell in json.load(open(notebook))["cells"] if cell["cell_type"] == "code"]
    code = "\n".join("".join(cell["source"]) for cell in cells if not "".join(cell["source"]).startswith("%%"))
    code = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!")))
    done = subprocess.run([python, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300,
                          universal_newlines=True, env=dict(os.environ, CIFAR_DIR=data_dir, TF_CPP_MIN_LOG_LEVEL="2"))
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_tf1_8_the_migrated_notebook_reads_the_same_examples(tmp_path):
    python = tf_python("1.8")
    data = tmp_path / "data"
    data.mkdir()
    run_tf(python, "make_data.py", str(data))
    after = tmp_path / "after.ipynb"
    after.write_bytes(open(GOLDEN, "rb").read())
    result, = api.migrate([str(after)], write=True)
    assert result.changed and not result.remaining
    old, new = (_run_cells(python, path, str(data)).splitlines() for path in (GOLDEN, str(after)))
    assert old[0] == new[0] == "Done: 640 examples"  # 2 epochs of 320, in batches of 16
    assert json.loads(old[-1]) == json.loads(new[-1]) == sorted(list(range(320)) * 2)


HELPER = '''import tensorflow as tf


def read_record(filename_queue):
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    return tf.parse_single_example(serialized, features={'id': tf.FixedLenFeature([], tf.int64)})['id']
'''


def test_notebooks_link_to_the_modules_they_import(tmp_path):
    """A notebook calls a reader helper of the repository's package and batches its records: both
    migrate in one run. A second notebook whose call of the helper stays (its records leave an
    if/else for a batching) keeps it as it is, and the message names that notebook's call at its
    line in the .ipynb file."""
    package = tmp_path / "records"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "reading.py").write_text(HELPER)
    train = _jupyter([_code("import tensorflow as tf\nfrom records.reading import read_record"),
                      _code("queue = tf.train.string_input_producer(['a.tfrecords'], num_epochs=1)\n"
                            "record = read_record(queue)\nids = tf.train.batch([record], 8)")])
    (tmp_path / "train.ipynb").write_text(train)
    results = {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)])}
    assert results["train.ipynb"].changed and not results["train.ipynb"].remaining
    assert results["reading.py"].changed
    look = _jupyter([_code("import sys\nimport tensorflow as tf\nfrom records.reading import read_record"),
                     _markdown("One record, or none, batched:"),
                     _code("queue = tf.train.string_input_producer(['a.tfrecords'])\nif len(sys.argv) > 1:\n"
                           "    first = read_record(queue)\nelse:\n    first = tf.constant(0, tf.int64)\n"
                           "batch = tf.train.batch([first], 1)")])
    (tmp_path / "look.ipynb").write_text(look)
    results = {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)])}
    assert not results["reading.py"].changed and not results["train.ipynb"].changed
    line = next(number for number, text in enumerate(look.splitlines(), 1) if "first = read_record(queue)" in text)
    kept = next(d for d in results["train.ipynb"].remaining if d.code == "QM101")
    assert "look.ipynb (line %d)" % line in kept.message or "look.ipynb:%d" % line in kept.message, kept.message


def test_mutated_notebooks_are_never_written_broken(tmp_path):
    """Bytes cut or added anywhere in a notebook (its JSON, its code, a stray magic or quote): the
    run never raises, and a notebook it writes is JSON whose code cells still parse."""
    import random
    golden = open(GOLDEN, "rb").read()
    rng = random.Random(7)
    for trial in range(40):
        mutated = bytearray(golden)
        where = rng.randrange(len(mutated))
        if trial % 2:
            del mutated[where:where + rng.randint(1, 20)]
        else:
            mutated[where:where] = rng.choice([b"\\n", b"    ", b"%", b"!", b'"', b"(", b"\xff"])
        path = tmp_path / ("n%d.ipynb" % trial)
        path.write_bytes(bytes(mutated))
        result, = api.migrate([str(path)], write=True)
        assert result.failure is None or result.failure.value != "internal", result.error
        written = path.read_bytes()
        if written != bytes(mutated):
            virtual, why = notebooks.virtual(written)
            assert virtual is not None, why
