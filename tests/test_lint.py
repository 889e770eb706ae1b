"""The package's own code passes pyflakes: no undefined name, unused import, dead redefinition or
unused local (each a bug or a leftover; one such, a method defined twice, hid for sessions)."""
import glob
import os
from collections import Counter

from pyflakes import api, reporter

from conftest import ROOT


class _Collected(reporter.Reporter):
    def __init__(self):
        self.messages = []

    def unexpectedError(self, filename, message):
        self.messages.append("%s: %s" % (filename, message))

    def syntaxError(self, filename, message, lineno, offset, text):
        self.messages.append("%s:%s: %s" % (filename, lineno, message))

    def flake(self, message):
        self.messages.append(str(message))


def test_package_code_passes_pyflakes():
    files = sorted(glob.glob(os.path.join(ROOT, "qmigrate", "*.py")) + glob.glob(os.path.join(ROOT, "rules", "*.py"))
                   + glob.glob(os.path.join(ROOT, "bench", "*.py")))
    assert len(files) > 50
    found = _Collected()
    for path in files:
        api.checkPath(path, found)
    assert found.messages == []


# Golden outputs that do hold a pyflakes message their input did not, and why it stays.
_GOLDEN_LEFTOVERS = {
    # its value reads every file (tf_record_iterator): dropping the line would drop that work
    ("single/slim_dataset_gone.after.py", "local variable 'num_examples' is assigned to but never used"),
    # it holds a TFRecordOptions call, not a value qmigrate proves free of effects
    ("single/slim_provider.after.py", "local variable 'reader_kwargs' is assigned to but never used"),
}


def _golden_pairs():
    data = os.path.join(ROOT, "testdata")
    for before in sorted(glob.glob(os.path.join(data, "*", "*.before.py"))):
        yield before, before[:-len(".before.py")] + ".after.py"
    for before_dir in sorted(glob.glob(os.path.join(data, "towers", "*", "before"))):
        for before in sorted(glob.glob(os.path.join(before_dir, "**", "*.py"), recursive=True)):
            yield before, os.path.join(os.path.dirname(before_dir), "after", os.path.relpath(before, before_dir))


def _messages(path):
    found = _Collected()
    api.checkPath(path, found)
    return Counter(message.split(" ", 1)[1] if message.startswith(path) else message for message in found.messages)


def test_migrated_goldens_add_no_pyflakes_message():
    """A file qmigrate writes holds no unused import, unused local or undefined name that its input
    did not (a lint error in the user's CI that the migration brought), but the listed ones."""
    added, pairs = set(), 0
    for before, after in _golden_pairs():
        if not os.path.exists(after):
            continue
        pairs += 1
        for message in _messages(after) - _messages(before):
            added.add((os.path.relpath(after, os.path.join(ROOT, "testdata")), message.split(": ", 1)[-1]))
    assert pairs > 150
    assert added == _GOLDEN_LEFTOVERS
