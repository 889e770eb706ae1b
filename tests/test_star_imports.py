"""`tf` bound by a star import of a module of the run (star_imports.py): proven only when every
module star-imported is of the run and the one `tf` they export is TensorFlow. The golden
towers/star_imported_tf holds a program migrated that way; here, what is proven and what is not."""
import os
import subprocess
import textwrap

import pytest

from conftest import TESTDATA
from qmigrate import api, star_imports
from qmigrate.program import Program
from test_golden import assemble_program, migrate_tree
from tfenv import dict_records, tf_python

USER = "from helpers import *\n\ndef start(sess):\n    return tf.train.start_queue_runners(sess=sess)\n"


def _plan(tmp_path, modules):
    paths = []
    for name, text in modules.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        paths.append(str(path))
    program = Program(paths, lambda p: open(p, "rb").read())
    return {os.path.relpath(path, str(tmp_path)): patch for path, patch in star_imports.plan(paths, program).items()}


def test_a_star_import_of_a_module_that_imports_tensorflow_binds_tf(tmp_path):
    found = _plan(tmp_path, {"helpers.py": "import os\nimport tensorflow as tf\n", "train.py": USER})
    assert list(found) == ["train.py"]
    line, text, patched = found["train.py"]
    assert (line, text, patched) == (1, b"from helpers import *", b"from helpers import *; import tensorflow as tf")


def test_through_a_chain_of_star_imports_and_a_relative_one(tmp_path):
    found = _plan(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": "import tensorflow as tf\n",
                             "pkg/helpers.py": "from .base import *\n", "pkg/train.py": USER.replace(
                                 "from helpers", "from .helpers")})
    assert list(found) == ["pkg/train.py"]


@pytest.mark.parametrize("helpers", [
    "import tensorflow as tf\n__all__ = ['log']\n",             # __all__ leaves it out
    "import sugartensor as tf\n",                                 # another package
    "import tensorflow as tf\ntf = None\n",                       # bound again
    "try:\n    import tensorflow as tf\nexcept ImportError:\n    tf = None\n",  # conditionally
    "import os\n",                                                # not bound at all
])
def test_what_is_not_proven_stays(tmp_path, helpers):
    assert _plan(tmp_path, {"helpers.py": helpers, "train.py": USER}) == {}


def test_a_star_import_from_outside_the_run_leaves_it_unproven(tmp_path):
    user = USER.replace("from helpers import *\n", "from helpers import *\nfrom numpy import *\n")
    assert _plan(tmp_path, {"helpers.py": "import tensorflow as tf\n", "train.py": user}) == {}


def test_a_module_that_binds_tf_itself_is_not_patched(tmp_path):
    user = USER.replace("from helpers import *\n", "from helpers import *\nimport tensorflow as tf\n")
    assert _plan(tmp_path, {"helpers.py": "import tensorflow as tf\n", "train.py": user}) == {}


def test_the_users_line_comes_back_as_it_was(tmp_path):
    (tmp_path / "helpers.py").write_text("import tensorflow as tf\n")
    (tmp_path / "records.py").write_text(textwrap.dedent("""\
        import tensorflow as tf

        def batches(files):
            queue = tf.train.string_input_producer(files, num_epochs=1)
            _, value = tf.TFRecordReader().read(queue)
            return tf.train.batch([value], batch_size=2)
        """))
    (tmp_path / "train.py").write_text(textwrap.dedent("""\
        from helpers import *
        import records

        def run(files):
            batch = records.batches(files)
            with tf.Session() as sess:
                tf.train.start_queue_runners(sess=sess)
                return sess.run(batch)
        """))
    results = {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)])}
    train = results["train.py"]
    assert train.changed and train.old_source == (tmp_path / "train.py").read_bytes()
    assert train.new_source.startswith(b"from helpers import *\nimport records\n")
    assert b"start_queue_runners" not in train.new_source and b"import tensorflow" not in train.new_source


def test_the_golden_program_reads_the_same_examples_under_tf18(tmp_path):
    # towers/star_imported_tf: train.py, whose `tf` comes from `from shared import *`, lost its queue
    # runners with the migrated input; before and after it reads the 50 examples once.
    python = tf_python("1.8")
    files = dict_records(python, tmp_path / "data")
    scenario = os.path.join(TESTDATA, "towers", "star_imported_tf", "before")
    before, after = str(tmp_path / "before"), str(tmp_path / "after")
    assemble_program(scenario, before)
    migrate_tree(scenario, after)
    with open(os.path.join(after, "train.py")) as handle:
        assert "start_queue_runners" not in handle.read()
    seen = {}
    for label, folder in (("before", before), ("after", after)):
        done = subprocess.run([python, os.path.join(folder, "train.py")] + files, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=300,
                              env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
        assert done.returncode == 0, done.stderr[-2000:]
        seen[label] = done.stdout.splitlines()[-1]
    assert seen["after"] == seen["before"] == str(list(range(50)))


def test_a_file_of_lone_carriage_returns_is_left_to_unbound_tf(tmp_path):
    # The parser ends lines at a lone \r, the patch counts \n: nothing is proven, nothing crashes.
    (tmp_path / "helpers.py").write_text("import tensorflow as tf\n")
    (tmp_path / "train.py").write_bytes(USER.replace("\n", "\r").encode())
    results = {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)])}
    assert [d.code for d in results["train.py"].remaining] == ["QM501"]


def test_code_added_after_the_imports_stays_after_the_docstring(tmp_path):
    # A pipeline sharded for towers adds a file-order seed after the module's imports; the
    # patched star import (two statements on one line) is one of them.
    with open(os.path.join(TESTDATA, "single", "sets_loop.before.py")) as handle:
        source = handle.read()
    assert source.count("import tensorflow as tf\n") == 1
    (tmp_path / "helpers.py").write_text("import tensorflow as tf\n")
    (tmp_path / "sets.py").write_text(source.replace("import tensorflow as tf\n", "from helpers import *\n"))
    results = {os.path.basename(r.path): r for r in api.migrate([str(tmp_path)])}
    new = results["sets.py"].new_source.decode()
    assert new.startswith('"""') and new.index("from helpers import *\nimport random\n") < new.index("_FILE_ORDER_SEED")
