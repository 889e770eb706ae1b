"""Running qmigrate on what it wrote finds nothing more to do: what a migration keeps on purpose
(a `match_filenames_once` variable kept for its other uses; a Coordinator, in
tests/test_thread_coordinators.py) is not asked for again."""
from click.testing import CliRunner

from qmigrate.cli import main

# A GAN input of the shape of hardikbansal/CycleGAN: the matched names also give a count.
COUNTED = '''import tensorflow as tf


class Model(object):
    def input_setup(self, pattern):
        files = tf.train.match_filenames_once(pattern)
        self.count = tf.size(files)
        queue = tf.train.string_input_producer(files)
        reader = tf.WholeFileReader()
        _, image_file = reader.read(queue)
        self.image = tf.image.decode_jpeg(image_file)
'''


def test_a_match_kept_for_its_other_uses_is_not_asked_for_again(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(COUNTED)
    written = CliRunner().invoke(main, [str(path), "--write"])
    assert written.exit_code == 0, written.output
    text = path.read_text()
    assert "tf.train.match_filenames_once(pattern)" in text and "tf.matching_files(pattern)" in text
    again = CliRunner().invoke(main, [str(path), "--check"])
    assert again.exit_code == 0, again.output
    assert "QM103" not in again.output


def test_a_match_handed_on_is_still_reported(tmp_path):
    path = tmp_path / "files.py"
    path.write_text("import tensorflow as tf\n\n\ndef files(pattern):\n"
                    "    names = tf.train.match_filenames_once(pattern)\n    count = tf.size(names)\n"
                    "    return names, count\n")
    run = CliRunner().invoke(main, [str(path), "--check"])
    assert run.exit_code == 1 and "QM103" in run.output
