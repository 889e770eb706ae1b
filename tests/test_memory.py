"""The cyclic collector's thresholds during a run (memory.fewer_collections): set for the run,
in the parent and in every worker, and the caller's own given back after it."""
import gc
import multiprocessing
import os

import pytest

from qmigrate import api, memory

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "testdata", "single", "cifar10_binary.before.py")


def _thresholds(_):
    return gc.get_threshold()


def test_the_callers_thresholds_come_back_even_after_an_error():
    before = gc.get_threshold()
    assert before != memory.RUN_THRESHOLDS
    with pytest.raises(KeyError):
        with memory.fewer_collections():
            assert gc.get_threshold() == memory.RUN_THRESHOLDS
            raise KeyError("x")
    assert gc.get_threshold() == before


def test_a_run_analyses_with_the_run_thresholds_and_gives_the_callers_back(tmp_path, monkeypatch):
    before = gc.get_threshold()
    seen = []
    analyse = api.engine.analyse

    def recording(*args, **kwargs):
        seen.append(gc.get_threshold())
        return analyse(*args, **kwargs)

    monkeypatch.setattr(api.engine, "analyse", recording)
    target = tmp_path / "train.py"
    target.write_bytes(open(EXAMPLE, "rb").read())
    results = api.migrate([str(target)], jobs=1)  # one job: analysed in this process
    assert results[0].changed
    assert seen and set(seen) == {memory.RUN_THRESHOLDS}
    assert gc.get_threshold() == before


def test_a_worker_collects_with_the_run_thresholds_whatever_its_parent_had():
    context = multiprocessing.get_context("fork")
    mine, theirs = context.Pipe()
    process = context.Process(target=api._worker_loop, args=(theirs,), daemon=True)
    process.start()
    theirs.close()
    try:
        mine.send((_thresholds, [None]))
        failed, answers = mine.recv()
        mine.send(None)
    finally:
        process.join(10)
    assert gc.get_threshold() != memory.RUN_THRESHOLDS  # the parent's, which the fork copied
    assert not failed and answers == [memory.RUN_THRESHOLDS]
