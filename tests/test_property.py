"""Property: whatever a real file is mutated into, qmigrate never crashes and never writes code that
does not parse (hypothesis mutates the testdata: lines dropped, repeated, swapped, text inserted)."""
import glob
import os

import libcst as cst
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TESTDATA
from qmigrate import api
from qmigrate.diagnostics import Status

SOURCES = sorted(glob.glob(os.path.join(TESTDATA, "single", "*.before.py"))
                 + glob.glob(os.path.join(TESTDATA, "towers", "*", "before", "*.py"))
                 + glob.glob(os.path.join(TESTDATA, "towers", "common", "*.py")))
INSERTIONS = ["(", ")", ":", "    ", "\t", "\n", "'", '"""', "\\", "return ", "yield x", "lambda: ",
              "tf.train.batch([x], 2)", "tf.train.shuffle_batch(", "with tf.device('/gpu:0'):\n",
              "for i in range(4):\n", "é", "\x00", "# qmigrate: ignore\n"]


@st.composite
def mutated(draw):
    with open(draw(st.sampled_from(SOURCES)), encoding="utf-8") as handle:
        lines = handle.read().splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["drop", "repeat", "swap", "insert", "truncate"]))
        at = draw(st.integers(0, max(len(lines) - 1, 0)))
        if not lines:
            break
        if kind == "drop":
            del lines[at]
        elif kind == "repeat":
            lines.insert(at, lines[at])
        elif kind == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
        elif kind == "insert":
            column = draw(st.integers(0, len(lines[at])))
            lines[at] = lines[at][:column] + draw(st.sampled_from(INSERTIONS)) + lines[at][column:]
        else:
            lines = lines[:at]
    return "".join(lines)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_never_crashes_and_never_produces_unparsable_code(tmp_path_factory, source):
    path = tmp_path_factory.mktemp("mutant") / "mutant.py"
    path.write_text(source, encoding="utf-8")
    [result] = api.migrate([str(path)], write=True)
    assert not (result.error or "").startswith("internal error"), result.error
    written = path.read_bytes()
    if result.changed:
        assert result.status is not Status.FAILED
        cst.parse_module(written)  # only code that parses is ever written
    else:
        assert written == source.encode("utf-8")  # untouched, byte for byte (failed files included)
