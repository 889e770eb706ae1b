"""QM906: the tf.* names a file uses that its target TensorFlow version does not have."""
import textwrap

from click.testing import CliRunner

from qmigrate import engine
from qmigrate.cli import main
from qmigrate.targets import TARGETS

# Queue code qmigrate migrates, so that the file is analysed.
_PIPELINE = """
def inputs(files):
    queue = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    _, record = reader.read(queue)
    return tf.train.batch([tf.decode_raw(record, tf.uint8)], batch_size=8)
"""


def _with_pipeline(text):
    return textwrap.dedent(text).lstrip() + _PIPELINE


def _findings(source, target="1.8", **options):
    analysis = engine.analyse("example.py", source.encode(), engine.Options(target=TARGETS[target], **options))
    return [(d.line, d.column, d.message) for d in analysis.result().diagnostics if d.code == "QM906"]


def test_a_removed_api_beside_migrated_queue_code_is_reported_where_it_is_written():
    found = _findings("import tensorflow as tf\n\nx = tf.image.per_image_whitening(y)\n" + _PIPELINE)
    [(line, column, message)] = found
    assert (line, column) == (3, 5)
    assert ("(tf.image.per_image_whitening is not in TensorFlow 1.8.0; "
            "tf.image.per_image_standardization replaced it)") in message


def test_only_files_with_queue_code_are_judged():
    assert _findings("import tensorflow as tf\n\nx = tf.image.per_image_whitening(y)\n") == []


def test_names_are_resolved_through_imports_and_aliases_and_reported_once_per_binding():
    found = _findings(_with_pipeline("""
        import tensorflow as tf
        import tensorflow as tflow
        from tensorflow import image as im
        from tensorflow.image import per_image_whitening
        whiten = tflow.image.per_image_whitening

        a = im.per_image_whitening(x)
        b = whiten(per_image_whitening(x))
        c = tflow.image.per_image_standardization(x)
        d = tflow.__version__
        """))
    assert [(line, message.split("(")[1].split(" is not")[0]) for line, _, message in found] == [
        (4, "tensorflow.image.per_image_whitening"), (5, "tflow.image.per_image_whitening"),
        (7, "im.per_image_whitening")]


def test_each_target_is_judged_by_its_own_table():
    source = _with_pipeline("""
        import tensorflow as tf
        slim = tf.contrib.slim
        x = tf.compat.v1.placeholder(tf.float32)
        y = tf.placeholder(tf.float32)
        z = slim.conv2d(x, 8, 3)
        """)
    assert [m for _, _, m in _findings(source, "1.8")] == [
        engine.ApiNotInTarget.message + " (tf.compat.v1.placeholder: TensorFlow 1.8.0 has no tf.compat.v1); to do: "
        + engine.ApiNotInTarget.advice]
    assert _findings(source, "1.15") == []
    on_2 = [m.split("(")[1].split(")")[0] for _, _, m in _findings(source, "2")]
    # The queue APIs are their own rules' findings; tf.decode_raw is kept under tf.compat.v1.
    assert on_2 == ["tf.contrib.slim: TensorFlow 2.21.0 has no tf.contrib",
                    "tf.placeholder is not in TensorFlow 2.21.0; tf.compat.v1.placeholder keeps it",
                    "tf.decode_raw is not in TensorFlow 2.21.0; tf.compat.v1.decode_raw keeps it"]


def test_ignored_and_suppressed_findings_are_not_reported():
    source = ("import tensorflow as tf\n\nx = tf.image.per_image_whitening(y)  # qmigrate: ignore[QM906]\n"
              + _PIPELINE)
    assert _findings(source) == []
    assert _findings(source.replace("  # qmigrate: ignore[QM906]", ""), ignore=("QM906",)) == []


def test_it_fails_a_check_even_when_everything_else_is_migrated(tmp_path):
    script = tmp_path / "inputs.py"
    script.write_text("import tensorflow as tf\n" + _PIPELINE.replace(
        "tf.decode_raw(record, tf.uint8)", "tf.image.per_image_whitening(tf.decode_raw(record, tf.uint8))"))
    checked = CliRunner().invoke(main, [str(script), "--check"])
    assert checked.exit_code == 1 and "QM906" in checked.output
    assert CliRunner().invoke(main, [str(script), "--check", "--ignore", "QM906"]).exit_code == 1  # the queues
    written = CliRunner().invoke(main, [str(script), "--write"])
    assert "dataset.make_one_shot_iterator().get_next()" in script.read_text()
    assert "tf.train" not in script.read_text()
    assert written.exit_code == 1 and "QM906" in written.output


def test_the_fast_precheck_agrees_with_the_scan_on_every_golden_and_target():
    """find() skips the libcst scan when the stdlib tree shows nothing: the two must agree."""
    import glob
    import os

    from conftest import TESTDATA
    from qmigrate import api_check
    from qmigrate.names import ImportMap
    from qmigrate.positions import stdlib_tree

    seen = 0
    for path in sorted(glob.glob(os.path.join(TESTDATA, "**", "*.py"), recursive=True)):
        with open(path, "rb") as handle:
            source = handle.read()
        module, tree = engine.parse(source), stdlib_tree(source)
        imports = ImportMap(module, tree)
        for target in TARGETS.values():
            scanned = api_check.find(module, imports, target)
            assert api_check.find(module, imports, target, tree) == scanned, (path, target.version)
            seen += bool(scanned)
    assert seen > 20  # most goldens use TF 1.x names that 2.x lacks


def test_calls_spelled_with_a_signature_tensorflow_1_0_changed_are_reported():
    """Each fails on every target (measured under TF 1.8: TypeError for concat and split,
    ValueError for the cross entropy and resize_images); the 1.0 spellings pass."""
    found = _findings(_with_pipeline("""
        import tensorflow as tf

        a = tf.concat(1, [x, y])
        b = tf.split(split_dim=0, num_split=2, value=a)
        c = tf.split(0, 2, a)
        d = tf.nn.softmax_cross_entropy_with_logits(logits, labels)
        e = tf.image.resize_images(image, 8, 8)
        fine = [tf.concat([x, y], 1), tf.split(a, 2, 0), tf.image.resize_images(image, [8, 8], 1, False),
                tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits), tf.concat(-1, [x])]
        """))
    said = {line: message for line, _, message in found}
    assert sorted(said) == [3, 4, 5, 6, 7, 9]
    assert "tf.concat(...) is TensorFlow 0.x's tf.concat(concat_dim, values)" in said[3]
    assert "tf.split(...) is TensorFlow 0.x's tf.split(split_dim, num_split, value)" in said[4]
    assert said[5] == said[4]
    assert "takes only named ones (labels=, logits=)" in said[6]
    assert "resize_images(images, size)" in said[7]
    assert "concat_dim" in said[9]  # `tf.concat(-1, [x])`: an integer first is the 0.x order
