"""record_arms: the queues an if/else's arms read made in those arms, and the code after it up to
the batching copied into each arm; refused, with the reason, where that could change what runs.
(Golden: testdata/single/record_arms; TF behaviour: tests/test_tf_behaviour.py.)"""
from qmigrate import api

SHAPE = '''import tensorflow as tf


def inputs(files, batch_size, train, num_readers):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=train)
    {between}
    pool = tf.RandomShuffleQueue(capacity=50, min_after_dequeue=20, dtypes=[tf.string])
    if {test}:
        ops = []
        for _ in range(2):
            _, serialized = tf.TFRecordReader().read(queue)
            ops.append(pool.enqueue([serialized]))
        tf.train.add_queue_runner(tf.train.QueueRunner(pool, ops))
        value = pool.dequeue()
    else:
        {read}
    {after}example = tf.parse_single_example(value, {{'x': tf.FixedLenFeature([3], tf.float32)}})
    return tf.train.batch([example['x']], batch_size=batch_size)
'''


def _migrated(tmp_path, between="pass", test="num_readers > 1",
              read="_, value = tf.TFRecordReader().read(queue)", after=""):
    path = tmp_path / "inputs.py"
    path.write_text(SHAPE.format(between=between, test=test, read=read, after=after))
    result, = api.migrate([str(path)], jobs=1)
    return result


def _reasons(result):
    return {d.message.split("; not rewritten: ")[1].split("; to do:")[0] for d in result.diagnostics
            if not d.fixed and "not rewritten" in d.message}


def test_each_arm_gets_the_queues_it_reads_and_the_batching(tmp_path):
    result = _migrated(tmp_path)
    new = result.new_source.decode()
    assert result.changed and not [d for d in result.diagnostics if not d.fixed]
    assert "tf.train" not in new and "Queue" not in new
    assert new.count("make_one_shot_iterator().get_next()") == 2
    # the queue of records is read in the first arm only: the second reads its files alone
    assert "dataset = dataset.interleave(tf.data.TFRecordDataset, cycle_length=2)" in new
    assert "dataset_2 = dataset_2.flat_map(tf.data.TFRecordDataset)" in new


def test_a_check_that_raises_may_stand_between_the_queues_and_the_if(tmp_path):
    result = _migrated(tmp_path, between="if batch_size < 1:\n        raise ValueError('batch_size %d' % batch_size)")
    assert result.changed and not [d for d in result.diagnostics if not d.fixed]
    assert "    if batch_size < 1:\n        raise ValueError" in result.new_source.decode()


def test_a_call_between_the_queues_and_the_if_stays_where_it_ran(tmp_path):
    result = _migrated(tmp_path, between="tf.logging.info('reading %d files', len(files))")
    assert not result.changed
    assert any(reason.endswith("but a statement between the queues and the `if` calls a function or may leave "
                               "the function: it would run before the queues are made") for reason in _reasons(result))


def test_a_test_that_reads_the_queue_or_calls_keeps_the_file(tmp_path):
    result = _migrated(tmp_path, test="queue.name.startswith('x')")
    assert not result.changed
    assert any(reason.endswith("but a test of the `if` calls a function, which would run before the queues are "
                               "made") for reason in _reasons(result))


def test_a_queue_read_after_the_if_keeps_the_file(tmp_path):
    result = _migrated(tmp_path, after="print(pool.size())\n    ")
    assert not result.changed
    assert any(reason.endswith("but the queue `pool` is also read outside the arms of the `if`")
               for reason in _reasons(result))


def test_an_arm_that_returns_keeps_the_file(tmp_path):
    result = _migrated(tmp_path, read="_, value = tf.TFRecordReader().read(queue)\n        if train:\n"
                                      "            return None")
    assert not result.changed
    assert any(reason.endswith("but an arm may leave the `if` early (return, raise, break, continue, yield or await)")
               for reason in _reasons(result))


def test_a_name_the_queue_reads_bound_again_before_the_if_keeps_the_file(tmp_path):
    result = _migrated(tmp_path, between="files = files[:1]")
    assert not result.changed
    assert any(reason.endswith("but a statement between the queue `queue` and the `if` binds `files`, which making "
                               "the queue reads") for reason in _reasons(result))


def test_a_function_defined_in_another_is_its_own_scope(tmp_path):
    """The shape inside a nested function: its queues are its own locals, which the enclosing
    function's code does not read."""
    nested = "\n".join("    " + line if line else line for line in SHAPE.format(
        between="pass", test="num_readers > 1", read="_, value = tf.TFRecordReader().read(queue)",
        after="").split("\n")[3:])
    path = tmp_path / "inputs.py"
    path.write_text("import tensorflow as tf\n\n\ndef outer(files, queue=None):\n" + nested
                    + "\n    return inputs(files, 8, True, 2), queue\n")
    result, = api.migrate([str(path)], jobs=1)
    assert result.changed and not [d for d in result.diagnostics if not d.fixed]
    assert "Queue" not in result.new_source.decode()


def test_a_reason_an_arm_chain_stays_for_is_said_of_the_calls_around_the_if(tmp_path):
    """The arms made whole, a chain still stays (here: its per-record code makes a summary, which a
    map function would take out of the program's summaries): the calls say that, not that the
    queue is "used by" the if or "not part of a chain" (Inception's batch_inputs, whose image
    preprocessing makes image summaries)."""
    summary = "tf.summary.histogram('x', example['x'])\n    "
    result = _migrated(tmp_path, after="example = tf.parse_single_example(value, {'x': tf.FixedLenFeature([3], "
                                       "tf.float32)})\n    " + summary)
    assert not result.changed
    reasons = _reasons(result)
    arms = [why for why in reasons if "either arm" in why]
    assert arms and all("but there: the per-record code calls `tf.summary.histogram`" in why for why in arms)
    assert not any("used by `if" in why or why.startswith("it is not part of") for why in reasons)
    pool, = [d for d in result.diagnostics if d.code == "QM307" and "RandomShuffleQueue" in d.message]
    assert "its records come from either arm of the if/else at line 8" in pool.message
