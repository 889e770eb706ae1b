"""A notebook is reported (QM002) when its code cells call a queue API, not when only its bytes
pass the prefilter: a notebook of tf.data code (`dataset.batch(32)`) was flagged and failed
--check (found outside the corpus, in tensorflow/tpu's colab notebooks)."""
import json

import pytest

from qmigrate import api


def _notebook(*cells, markdown=""):
    return json.dumps({"nbformat": 4, "cells": [{"cell_type": "markdown", "source": [markdown]}] + [
        {"cell_type": "code", "source": [line + "\n" for line in cell.split("\n")]} for cell in cells]})


@pytest.mark.parametrize("cells,reported", [
    (("import tensorflow as tf", "dataset = tf.data.Dataset.range(10).batch(2)"), False),
    (("import tensorflow as tf\n%matplotlib inline", "q = tf.train.string_input_producer(['a'])"), True),
    (("import tensorflow as tf", "images = tf.train.batch([image], 32)"), True),
    (("import tensorflow as tf", "x = (", "tf.train.batch"), True),  # code that does not parse: reported
])
def test_only_queue_code_is_reported(tmp_path, cells, reported):
    path = tmp_path / "explore.ipynb"
    path.write_text(_notebook(*cells, markdown="tf.train.batch is in the prose only"))
    result, = api.migrate([str(path)], jobs=1)
    assert [d.code for d in result.diagnostics] == (["QM002"] if reported else [])
    assert not result.changed
