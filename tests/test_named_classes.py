"""Reader and queue classes named but not called (qmigrate/named_classes.py): each gets a word
where it is named, so no file keeps a queue API's name without one; nothing is rewritten."""
import textwrap

from qmigrate import api


def _run(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return {r.path[len(str(tmp_path)) + 1:]: r for r in api.migrate([str(tmp_path)])}


def _said(result):
    return [(d.line, d.code, d.note, d.message) for d in result.diagnostics]


DEFINITIONS = '''\
    import tensorflow as tf

    slim = tf.contrib.slim


    def get_split(files, reader=None):
        if reader is None:
            reader = tf.TFRecordReader
        decoder = slim.tfexample_decoder.TFExampleDecoder(
            {'id': tf.FixedLenFeature([], tf.int64)}, {'id': slim.tfexample_decoder.Tensor('id')})
        return slim.dataset.Dataset(data_sources=files, reader=reader, decoder=decoder, num_samples=10,
                                    items_to_descriptions={})


    def get_other_split(files, reader=tf.TFRecordReader):
        return slim.dataset.Dataset(files, reader=reader, decoder=None, num_samples=10, items_to_descriptions={})


    def get_direct_split(files):
        return slim.dataset.Dataset(files, reader=tf.TextLineReader, decoder=None, num_samples=10,
                                    items_to_descriptions={})
'''


def test_a_module_of_dataset_definitions_says_why_each_reader_class_stays(tmp_path):
    """Where the class is written: the assignment's value, the parameter's default, the argument."""
    results = _run(tmp_path, {"splits.py": DEFINITIONS})
    said = _said(results["splits.py"])
    assert [(line, code, note) for line, code, note, _ in said] == [(8, "QM110", True), (15, "QM110", True),
                                                                   (20, "QM110", True)]
    assert all("this module makes the Dataset" in message for _, _, _, message in said)
    assert not results["splits.py"].changed


def test_a_reader_class_of_a_provider_left_in_its_module_is_left_to_the_providers_finding(tmp_path):
    text = DEFINITIONS + '''\


    def read(files):
        provider = slim.dataset_data_provider.DatasetDataProvider(get_split(files), num_readers=lambda: 2)
        example_id, = provider.get(['id'])
        return example_id
    '''
    said = _said(_run(tmp_path, {"splits.py": text})["splits.py"])
    assert [code for _, code, _, _ in said] == ["QM106"], said


def test_a_queue_class_subclassed_is_queue_code_of_the_modules_own(tmp_path):
    results = _run(tmp_path, {"work.py": '''\
        import tensorflow as tf


        class CountingQueue(tf.FIFOQueue):
            def __init__(self, capacity):
                super(CountingQueue, self).__init__(capacity, [tf.string], shapes=[[]])
        '''})
    [(line, code, note, message)] = _said(results["work.py"])
    assert (line, code, note) == (4, "QM307", False)
    assert "`CountingQueue` subclasses tf.FIFOQueue" in message and "to do:" in message


def test_a_type_check_and_a_table_of_classes_are_notes(tmp_path):
    results = _run(tmp_path, {"checks.py": '''\
        import tensorflow as tf
        from tensorflow import RandomShuffleQueue as Shuffling

        READERS = {'tfrecord': tf.TFRecordReader}


        def shuffles(queue):
            return isinstance(queue, (Shuffling, tf.RandomShuffleQueue))
        '''})
    said = _said(results["checks.py"])
    assert [(line, code, note) for line, code, note, _ in said] == [(4, "QM004", True), (8, "QM004", True),
                                                                   (8, "QM004", True)]
    assert "(tf.TFRecordReader)" in said[0][3]
    assert all("(tf.RandomShuffleQueue, a type check)" in message for _, _, _, message in said[1:])


def test_a_name_only_assigned_a_class_is_not_a_second_reference(tmp_path):
    """ImportMap resolves `reader_class` to the class too; the class is said once, where it is written."""
    results = _run(tmp_path, {"table.py": '''\
        import tensorflow as tf

        reader_class = tf.TFRecordReader
        print(reader_class)
        '''})
    assert [(line, code) for line, code, _, _ in _said(results["table.py"])] == [(3, "QM004")]


def test_a_suppressed_line_says_nothing(tmp_path):
    results = _run(tmp_path, {"table.py": '''\
        import tensorflow as tf

        READERS = [tf.TFRecordReader]  # qmigrate: ignore
        '''})
    assert _said(results["table.py"]) == []


def test_a_rewritten_module_is_not_told_of_a_class_its_rewrite_removed(tmp_path):
    """The Dataset only the migrated provider read goes, with the class it was given."""
    results = _run(tmp_path, {"inputs.py": '''\
        import tensorflow as tf

        slim = tf.contrib.slim


        def inputs(files, batch_size):
            decoder = slim.tfexample_decoder.TFExampleDecoder(
                {'id': tf.FixedLenFeature([], tf.int64)}, {'id': slim.tfexample_decoder.Tensor('id')})
            dataset = slim.dataset.Dataset(files, tf.TFRecordReader, decoder, 100, {})
            provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False, num_epochs=1)
            example_id, = provider.get(['id'])
            return tf.train.batch([example_id], batch_size=batch_size)
        '''})
    result = results["inputs.py"]
    assert result.changed and "TFRecordReader" not in result.new_source.decode()
    assert all(d.fixed for d in result.diagnostics), _said(result)


def test_the_readers_place_among_a_datasets_positional_arguments_counts_as_reader(tmp_path):
    """slim.dataset.Dataset(data_sources, reader, decoder, ...): the class is the reader given."""
    results = _run(tmp_path, {"splits.py": '''\
        import tensorflow as tf

        slim = tf.contrib.slim


        def get_split(files, decoder):
            return slim.dataset.Dataset(files, tf.TFRecordReader, decoder, 10, {})
        '''})
    assert [(line, code) for line, code, _, _ in _said(results["splits.py"])] == [(7, "QM110")]
