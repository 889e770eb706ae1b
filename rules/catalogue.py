"""The master list of TF 1.x queue-based APIs, by canonical name.

Every name here is claimed by exactly one rule: rewritten by its family's rule, or reported by
QM001 with a reason and what to do (tests/test_coverage.py holds the list to that, and the list
to the queue-looking symbols of the real TF 1.8 wheel).
"""

QUEUE_APIS = (
    # producers
    "tensorflow.train.string_input_producer",
    "tensorflow.train.slice_input_producer",
    "tensorflow.train.input_producer",
    "tensorflow.train.range_input_producer",
    "tensorflow.train.limit_epochs",
    "tensorflow.train.match_filenames_once",
    # readers
    "tensorflow.TFRecordReader",
    "tensorflow.FixedLengthRecordReader",
    "tensorflow.TextLineReader",
    "tensorflow.WholeFileReader",
    "tensorflow.IdentityReader",
    "tensorflow.LMDBReader",
    "tensorflow.ReaderBase",
    # batching
    "tensorflow.train.batch",
    "tensorflow.train.shuffle_batch",
    "tensorflow.train.batch_join",
    "tensorflow.train.shuffle_batch_join",
    "tensorflow.train.maybe_batch",
    "tensorflow.train.maybe_batch_join",
    "tensorflow.train.maybe_shuffle_batch",
    "tensorflow.train.maybe_shuffle_batch_join",
    "tensorflow.contrib.training.bucket",
    "tensorflow.contrib.training.bucket_by_sequence_length",
    "tensorflow.contrib.training.batch_sequences_with_states",
    "tensorflow.contrib.training.SequenceQueueingStateSaver",
    "tensorflow.contrib.training.stratified_sample",
    "tensorflow.contrib.training.rejection_sample",
    # prefetching
    "tensorflow.contrib.slim.prefetch_queue.prefetch_queue",
    # raw queues
    "tensorflow.FIFOQueue",
    "tensorflow.PaddingFIFOQueue",
    "tensorflow.RandomShuffleQueue",
    "tensorflow.PriorityQueue",
    "tensorflow.QueueBase",
    # runners
    "tensorflow.train.QueueRunner",
    "tensorflow.train.add_queue_runner",
    "tensorflow.contrib.training.FeedingQueueRunner",
    "tensorflow.train.start_queue_runners",
    "tensorflow.train.Coordinator",
    "tensorflow.contrib.slim.queues.QueueRunners",
    "tensorflow.train.Supervisor",
    "tensorflow.train.MonitoredTrainingSession",
    "tensorflow.train.MonitoredSession",
    "tensorflow.train.SingularMonitoredSession",
    # slim's data providers, built on queues
    "tensorflow.contrib.slim.dataset_data_provider.DatasetDataProvider",
    "tensorflow.contrib.slim.parallel_reader.parallel_read",
    "tensorflow.contrib.slim.parallel_reader.ParallelReader",
    "tensorflow.contrib.slim.parallel_reader.single_pass_read",
    # tf.contrib.learn's readers (also reached as tf.contrib.learn.io.*), built on queues
    "tensorflow.contrib.learn.read_batch_examples",
    "tensorflow.contrib.learn.read_keyed_batch_examples",
    "tensorflow.contrib.learn.read_keyed_batch_examples_shared_queue",
    "tensorflow.contrib.learn.read_batch_features",
    "tensorflow.contrib.learn.read_batch_record_features",
    "tensorflow.contrib.learn.read_keyed_batch_features",
    "tensorflow.contrib.learn.read_keyed_batch_features_shared_queue",
    "tensorflow.contrib.learn.queue_parsed_features",
    # input functions that feed arrays or a generator through a queue of their own (a
    # FeedingQueueRunner thread); contrib.learn's also reached as tf.contrib.learn.io.*
    "tensorflow.estimator.inputs.numpy_input_fn",
    "tensorflow.estimator.inputs.pandas_input_fn",
    "tensorflow.contrib.learn.numpy_input_fn",
    "tensorflow.contrib.learn.pandas_input_fn",
    "tensorflow.contrib.learn.generator_input_fn",
    # tf.contrib.timeseries' readers and input functions, built on queues
    "tensorflow.contrib.timeseries.RandomWindowInputFn",
    "tensorflow.contrib.timeseries.WholeDatasetInputFn",
    "tensorflow.contrib.timeseries.NumpyReader",
    "tensorflow.contrib.timeseries.CSVReader",
)
