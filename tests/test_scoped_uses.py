"""cstutil.scoped_uses: name loads as Python's scopes decide (a nested function's locals are its own)."""
from collections import Counter

import libcst as cst

from qmigrate import cstutil


SHADOWING = '''
queue = make_queue()
record = read(queue)


def read(queue, *more, scale=queue):
    reader = Reader()
    _, record = reader.read(queue)
    return record


def counts():
    global record
    record = record + 1
    return [queue for queue in range(3)], queue


transform = lambda record: record * 2
'''


def test_scoped_uses_count_only_the_loads_of_the_scopes_own_names():
    """A function's parameters and the names it binds are its locals: their loads are no loads of
    the module's names. A default, a `global` name and a comprehension target are the module's."""
    module = cst.parse_module(SHADOWING)
    scoped = Counter(cstutil.scoped_uses(module).loads)
    assert scoped["queue"] == 1 + 1 + 1  # read(queue), the default `scale=queue`, `counts()`'s return
    assert scoped["record"] == 2  # `global record` names the module's, and `record + 1` reads it
    flat = Counter(cstutil.name_uses(module).loads)
    assert flat["queue"] == scoped["queue"] + 1 + 2  # reader.read(queue); the comprehension's target and element
    assert flat["record"] == scoped["record"] + 1 + 1  # `return record`; the lambda's


def test_scoped_uses_of_a_function_count_its_parameters_unless_it_is_a_statement():
    function = cst.parse_module(SHADOWING).body[2]
    assert Counter(cstutil.scoped_uses(function).loads)["queue"] == 2
    assert Counter(cstutil.scoped_uses(function, statement=True).loads)["queue"] == 1  # the default
