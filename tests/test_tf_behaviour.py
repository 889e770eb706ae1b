"""Single-function pipelines, before and after migration, drained under real TensorFlow 1.8, 1.15
and 2.21 (graph mode).

The after-programs are produced here by running qmigrate on the before-programs, for the version
they run under (--target-tf 1.8, 1.15 or 2). Under TF 2 the legacy program is the golden spelled
as legacy code runs there: `import tensorflow.compat.v1 as tf` and `tf.disable_eager_execution()`.
Compared: the
structure and static shapes of what the pipeline returns, the batch shapes, and the multiset of
examples (each example carries a unique id, so a lost, duplicated or altered example shows).
"""
import glob
import json
import os
from collections import Counter

import pytest

from conftest import TESTDATA
from qmigrate import api
from qmigrate.engine import Options
from qmigrate.targets import TARGETS
from tfenv import finish, load_json, run_tf, run_tf_status, start_tf, tf_python

SINGLE = os.path.join(TESTDATA, "single")
TF_VERSIONS = ("1.8", "1.15", "2")


@pytest.fixture(scope="module", params=TF_VERSIONS, ids=lambda v: "tf" + v)
def tf_version(request):
    return request.param


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tfdata")
    run_tf(tf_python("1.8"), "make_data.py", folder)
    return str(folder)


def _files(data, pattern):
    return sorted(glob.glob(os.path.join(data, pattern)))


# name, function, arguments (given the data folder), examples expected in one run, mode.
# "epoch": finite pipelines drained to the end; ("forever", n): the first batches of a pipeline
# that repeats a data set of n examples.
CASES = [
    ("cifar10_binary", "inputs", lambda d: dict(data_dir=d, batch_size=32, num_epochs=1), 320, "epoch"),
    ("tfrecord_mnist", "inputs", lambda d: dict(filenames=_files(d, "mnist_*"), batch_size=20, num_epochs=2),
     240, "epoch"),
    ("csv_header", "csv_inputs", lambda d: dict(csv_files=_files(d, "iris_*"), batch_size=10, seed=7), 90, "epoch"),
    # Slices of decode_csv's list batched: packed into one tensor each, as the queue packed them.
    # Python constants batched beside the records: tensors of the queue's dtypes, each example.
    ("constant_columns", "weighted_inputs", lambda d: dict(filenames=_files(d, "mnist_*"), batch_size=20), 120,
     "epoch"),
    ("constant_columns", "tagged_inputs", lambda d: dict(filenames=_files(d, "mnist_*"), batch_size=20), 120,
     "epoch"),
    ("csv_slices", "sliced_inputs", lambda d: dict(csv_files=_files(d, "iris_*"), batch_size=10), 90, "epoch"),
    ("csv_slices", "sliced_tensor_inputs", lambda d: dict(csv_files=_files(d, "iris_*"), batch_size=10), 90,
     "epoch"),
    ("image_files", "image_inputs", lambda d: dict(pattern_files=_files(d, "png/*.png"), batch_size=8,
                                                   num_epochs=1), 37, "epoch"),
    ("private_modules", "label_stream", lambda d: dict(files=_files(d, "data_batch_*"), batch_size=50), 300,
     "epoch"),
    ("dict_features", "dict_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, threads=2), 50,
     "epoch"),
    ("estimator_input_fn", "make_input_fn", lambda d: dict(files=_files(d, "dict_*"), batch_size=10, num_epochs=2),
     100, "epoch"),
    ("slices_images", "image_inputs", lambda d: dict(pattern_files=_files(d, "png/*.png"), batch_size=8,
                                                     num_epochs=2), 74, "epoch"),
    ("slices_images", "indexed_inputs", lambda d: dict(pattern_files=_files(d, "png/*.png"), batch_size=5,
                                                       num_epochs=1), 37, "epoch"),
    ("enqueue_many_planes", "plane_batches", lambda d: dict(data_dir=d, batch_size=40), 960, "epoch"),
    ("padded_lines", "char_batches", lambda d: dict(csv_files=_files(d, "iris_*"), batch_size=7), 90, "epoch"),
    ("read_up_to_chunks", "chunked_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=6), 50, "epoch"),
    ("join_readers", "input_pipeline", lambda d: dict(filenames=_files(d, "iris_*"), batch_size=8, num_epochs=2),
     180, "epoch"),
    ("join_readers", "ordered_pipeline", lambda d: dict(filenames=_files(d, "iris_*"), batch_size=8), 90, "epoch"),
    ("join_readers", "dict_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=5), 50, "epoch"),
    ("glob_files", "pattern_inputs", lambda d: dict(data_dir=d, batch_size=10), 100, "epoch"),
    ("fully_connected_reader", "inputs", lambda d: dict(filenames=_files(d, "mnist_*"), batch_size=20, num_epochs=2),
     240, "epoch"),
    ("py_func_shapes", "py_inputs", lambda d: dict(data_dir=d, batch_size=32), 320, "epoch"),
    ("record_guards", "guarded_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50, "epoch"),
    ("input_producer_files", "evaluation_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50,
     "epoch"),
    ("maybe_keep", "even_ids", lambda d: dict(files=_files(d, "dict_*"), batch_size=4), 25, "epoch"),
    ("maybe_keep", "shuffled_small_ids", lambda d: dict(files=_files(d, "dict_*"), batch_size=7), 60, "epoch"),
    ("tfrecord_gzip", "compressed_inputs", lambda d: dict(files=_files(d, "gzip_*"), batch_size=4), 60, "epoch"),
    ("handbuilt_shuffle_queue", "shuffled_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=10), 50,
     "epoch"),
    ("handbuilt_shuffle_queue", "named_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50,
     "epoch"),
    ("handbuilt_chain", "chained", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50, "epoch"),
    ("handbuilt_chain", "shuffled_chain", lambda d: dict(files=_files(d, "dict_*"), batch_size=10), 100, "epoch"),
    ("handbuilt_chain", "prefetched_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=10), 50,
     "epoch"),
    ("handbuilt_helper", "mixed_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=10), 50, "epoch"),
    ("handbuilt_helper", "padded_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50, "epoch"),
    ("handbuilt_helper", "helper_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=5), 100, "epoch"),
    ("handbuilt_helper", "collected_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50,
     "epoch"),
    ("handbuilt_helper", "chained_helpers", lambda d: dict(files=_files(d, "dict_*"), batch_size=10), 50,
     "epoch"),
    ("handbuilt_helper_refused", "mixed", lambda d: dict(files=_files(d, "dict_*"), batch_size=10), 50, "epoch"),
    ("handbuilt_padding", "padded_lines", lambda d: dict(csv_files=_files(d, "iris_*"), batch_size=10), 90,
     "epoch"),
    ("named_structures", "sliced_rows", lambda d: dict(pattern_files=_files(d, "png/*.png"), batch_size=8), 37,
     "epoch"),
    ("named_structures", "sliced_pairs", lambda d: dict(pattern_files=_files(d, "png/*.png"), batch_size=8), 74,
     "epoch"),
    ("named_structures", "named_dict", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50, "epoch"),
    ("named_structures", "named_list", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50, "epoch"),
    ("named_structures", "named_single", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50, "epoch"),
    ("reused_names", "reused_inputs", lambda d: dict(pattern_files=_files(d, "png/*.png"), batch_size=8), 37,
     "epoch"),
    ("reused_names", "image_inputs", lambda d: dict(pattern_files=_files(d, "png/*.png"), batch_size=8), 37,
     "epoch"),
    ("flag_shuffle", "flagged_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, shuffle=False), 50,
     "epoch"),
    ("flag_shuffle", "flagged_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, shuffle=True), 50,
     "epoch"),
    ("flag_shuffle", "branch_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, shuffle=False), 50,
     "epoch"),
    ("flag_shuffle", "branch_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, shuffle=True), 50,
     "epoch"),
    ("flag_shuffle", "returned_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, training=True), 50,
     "epoch"),
    ("flag_shuffle", "returned_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, training=False), 50,
     "epoch"),
    ("flag_shuffle", "column_inputs", lambda d: dict(csv_files=_files(d, "iris_*"), batch_size=7, shuffle=False),
     90, "epoch"),
    ("flag_shuffle", "column_inputs", lambda d: dict(csv_files=_files(d, "iris_*"), batch_size=7, shuffle=True),
     90, "epoch"),
    ("ptb_producer", "ptb_producer", lambda d: dict(raw_data=list(range(1000)), batch_size=4, num_steps=5), 80,
     ("forever", 80)),
    # rows() reshapes each batch of one back to a row: the runner sees its 3073 values as examples
    # (a digest each, so two of the five files: 2 epochs of 128 rows; all five took 30-45 s a run).
    ("batch_of_one", "rows", lambda d: dict(files=_files(d, "data_batch_*")[:2], num_epochs=2), 256 * 3073,
     "epoch"),
    ("batch_of_one", "rows_with_labels", lambda d: dict(files=_files(d, "data_batch_*")), 320, "epoch"),
    ("nested_reader_helpers", "train_inputs", lambda d: dict(files=_files(d, "data_batch_*"), batch_size=32), 320,
     "epoch"),
    ("record_source_helper", "scaled_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=5), 100, "epoch"),
    ("named_read_ops", "helper_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=5), 50, "epoch"),
    ("named_read_ops", "named_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=5), 50, "epoch"),
    ("producer_in_branches", "inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=5), 100, "epoch"),
    ("producer_in_branches", "inputs", lambda d: dict(files=_files(d, "dict_*")[0], batch_size=5), 50, "epoch"),
    # Arms that differ in the number of epochs (left out in one: the default, for ever), in
    # `shuffle=` (True in the `if`, False in the `else`: the test itself) and the capacity (gone).
    ("producer_in_branches", "mixed_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=5, train=False),
     50, "epoch"),
    ("producer_in_branches", "mixed_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=5, train=True),
     100, ("forever", 50)),
    ("producer_in_branches", "train_or_eval", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, train=False),
     50, "epoch"),
    ("producer_in_branches", "train_or_eval", lambda d: dict(files=_files(d, "dict_*"), batch_size=5, train=True),
     100, ("forever", 50)),
    # The shuffle's test kept beside the seed and epochs the arms name: the eval arm reads its files
    # in order, and drops the same partial batch as the queue (50 examples in batches of 8: the last 2).
    ("producer_in_branches", "seeded_train_or_eval", lambda d: dict(files=_files(d, "dict_*"), batch_size=8,
                                                                    train=False), 48, "epoch"),
    ("reader_loops", "looped_rows", lambda d: dict(csv_files=_files(d, "iris_*"), batch_size=8), 90, "epoch"),
    ("reader_loops", "shuffled_records", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 100, "epoch"),
    ("reader_loops", "parsed_by_helper", lambda d: dict(csv_files=_files(d, "iris_*"), batch_size=7), 90, "epoch"),
    ("join_branches", "single_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50, "epoch"),
    ("join_branches", "single_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, shuffle=True), 50,
     "epoch"),
    ("join_branches", "joined_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50, "epoch"),
    ("join_branches", "joined_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, shuffle=True), 50,
     "epoch"),
    ("join_branches", "looped_branches", lambda d: dict(files=_files(d, "dict_*"), batch_size=10), 100, "epoch"),
    ("join_branches", "looped_branches", lambda d: dict(files=_files(d, "dict_*"), batch_size=10, shuffle=True),
     100, "epoch"),
    ("comments_scope", "build_input", lambda d: dict(files=_files(d, "dict_*"), batch_size=10), 200, ("forever", 50)),
    ("class_reader_on_self", "feeder_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=5), 100, "epoch"),
    # Two objects of a reader class, each fed once: a dataset per object (each its own 2 epochs).
    ("fresh_feeders", "two_domains", lambda d: dict(files=_files(d, "dict_*"), batch_size=5), 50, "epoch"),
    # Records made in __init__ and batched by dequeue() (2 shuffled epochs of 37 images, whole
    # batches of 5), and read one at a time from outside the class (one epoch in order).
    ("held_records", "train_batches", lambda d: dict(pattern_files=_files(d, "png/*.png"), batch_size=5), 70,
     "epoch"),
    ("held_records", "single_records", lambda d: dict(pattern_files=_files(d, "png/*.png")), 37, "epoch"),
    # One record alone, batched as a tensor (not a list of one); forever, in order.
    ("held_records", "path_batches", lambda d: dict(pattern_files=_files(d, "png/*.png"), batch_size=4), 80,
     ("forever", 37)),
    # Each arm of an if/else batches and returns its batch (2 epochs of 50, whole batches of 5).
    ("arm_returns", "example_input", lambda d: dict(files=_files(d, "dict_*"), if_random=True, batch_size=5), 100,
     "epoch"),
    ("arm_returns", "example_input", lambda d: dict(files=_files(d, "dict_*"), if_random=False, batch_size=5), 100,
     "epoch"),
    ("class_queue_on_self", "owner_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=5), 100, "epoch"),
    ("class_queue_on_self", "stream_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50, "epoch"),
    ("class_reader_method", "source_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=5), 100, "epoch"),
    # --- unbatched ---
    # read_up_to's chunks (7, 7, 7, 4 per file of 25, twice), one record per step, whole files on `self`.
    ("unbatched_reads", "make_chunk_input_fn", lambda d: dict(files=_files(d, "dict_*"), chunk_size=7, num_epochs=2),
     100, "epoch"),
    ("unbatched_reads", "one_example", lambda d: dict(files=_files(d, "dict_*"), num_epochs=2), 100, "epoch"),
    ("unbatched_reads", "image_sizes", lambda d: dict(pattern_files=_files(d, "png/*.png")), 37, "epoch"),
    ("unbatched_reads", "evaluation_examples", lambda d: dict(path=_files(d, "dict_*")[0]), 25, "epoch"),
    # A producer's rows taken one at a time, no reader: 2 file names twice, 30 rows of two tensors twice.
    ("unbatched_rows", "next_file", lambda d: dict(files=_files(d, "dict_*"), num_epochs=2), 4, "epoch"),
    ("unbatched_rows", "scaled_rows", lambda d: dict(values=[i / 4.0 for i in range(30)], ids=list(range(30)),
                                                     num_epochs=2), 60, "epoch"),
    # Two folders of 10 images read in step through one whole-file reader; the listing variables count 20.
    ("shared_whole_file_reader", "paired_pixels", lambda d: dict(pattern_a=os.path.join(d, "png", "img_00*.png"),
                                                                 pattern_b=os.path.join(d, "png", "img_01*.png")),
     10, "epoch"),
    # The match_filenames_once variable stays for a summary; the dataset lists the pattern itself.
    ("glob_files", "counted_inputs", lambda d: dict(data_dir=d, batch_size=10), 200, ("forever", 50)),
    # A reader helper chosen by a flag: each format, each of the two pipelines through the variable.
    ("chosen_reader_helper", "inputs", lambda d: dict(file_format="csv", train_files=_files(d, "iris_*"),
                                                      eval_files=_files(d, "iris_*"), batch_size=6, epochs=2),
     180, "epoch"),
    ("chosen_reader_helper", "inputs", lambda d: dict(file_format="tfrecords", train_files=_files(d, "dict_*"),
                                                      eval_files=_files(d, "dict_*"), batch_size=5, epochs=1,
                                                      which="eval"), 50, "epoch"),
    # --- slim2 ---
    ("conditional_queue_helper", "padded_records", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50,
     "epoch"),
    ("conditional_queue_helper", "padded_records", lambda d: dict(files=_files(d, "dict_*"), batch_size=8,
                                                                  shuffle=True), 50, "epoch"),
    ("computed_final_batch", "batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50, "epoch"),
    # the last 2 of 50 examples dropped with the partial batch
    ("computed_final_batch", "batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, keep_last=False),
     48, "epoch"),
    # --- unbatched2 ---
    # shuffle=self.training: evaluation reads the two files once in order; training shuffles them
    # anew in each of its 3 epochs.
    ("attribute_shuffle", "file_examples", lambda d: dict(paths=_files(d, "dict_*"), training=False), 50, "epoch"),
    ("attribute_shuffle", "file_examples", lambda d: dict(paths=_files(d, "dict_*"), training=True, epochs=3), 150,
     "epoch"),
    # Batched: training's batches of 10 split no epoch's end (which 4 records a remainder drops
    # would depend on the random order).
    ("attribute_shuffle", "id_batches", lambda d: dict(paths=_files(d, "dict_*"), training=True, epochs=2,
                                                       batch_size=10), 100, "epoch"),
    ("attribute_shuffle", "id_batches", lambda d: dict(paths=_files(d, "dict_*"), training=False, epochs=1,
                                                       batch_size=8), 48, "epoch"),
    # --- classes2 ---
    ("class_queue_passed", "record_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=5), 100, "epoch"),
    # The same with functions: the queue made by train_inputs() and read through a reader helper
    # by example_batches(), which batches (2 ordered epochs of 50, whole batches of 5); one handed
    # by keyword to a shuffling batch (one epoch of 50).
    ("queue_handed_to_function", "train_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=5), 100,
     "epoch"),
    ("queue_handed_to_function", "id_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=5), 50, "epoch"),
    ("class_queue_passed", "own_reader_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=5), 50,
     "epoch"),
    ("class_queue_closure", "pair_inputs", lambda d: dict(files=_files(d, "png/*.png"), batch_size=3), 111, "epoch"),
    # --- split2 ---
    # TFRecord keys (`file:offset`) are part of each example's fingerprint: they must be the reader's.
    ("reader_keys", "keyed_chunks", lambda d: dict(patterns=_files(d, "gzip_*"), batch_size=4, epochs=0,
                                                   shuffle=False), 80, ("forever", 30)),
    ("reader_keys", "keyed_chunks", lambda d: dict(patterns=_files(d, "gzip_*"), batch_size=4, epochs=2,
                                                   shuffle=True), 60, "epoch"),
    ("reader_keys", "keyed_examples", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, training=False), 50,
     "epoch"),
    ("reader_keys", "keyed_examples", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, training=True), 50,
     "epoch"),
    # --- graphfed ---
    ("handbuilt_chosen", "flagged_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=10, shuffle=True),
     50, "epoch"),
    ("handbuilt_chosen", "flagged_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=10, shuffle=False),
     50, "epoch"),
    ("handbuilt_chosen", "ordered_or_mixed", lambda d: dict(files=_files(d, "dict_*"), batch_size=10,
                                                            in_order=True), 50, "epoch"),
    ("handbuilt_chosen", "ordered_or_mixed", lambda d: dict(files=_files(d, "dict_*"), batch_size=10,
                                                            in_order=False), 50, "epoch"),
    # The RandomShuffleQueue and the FIFOQueue differ in capacity only: one epoch, shuffled or in
    # order, batches of 8 and a smaller last one.
    ("handbuilt_chosen", "sized_by_mode", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, train=True),
     50, "epoch"),
    ("handbuilt_chosen", "sized_by_mode", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, train=False),
     50, "epoch"),
    ("handbuilt_reader_loop", "pooled_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=10), 50,
     "epoch"),
    ("handbuilt_reader_loop", "parsed_in_readers", lambda d: dict(files=_files(d, "dict_*"), batch_size=10), 100,
     "epoch"),
    # --- classes3 ---
    ("class_record_source", "example_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=5), 100,
     "epoch"),
    ("branch_record_arms", "cropped_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8,
                                                             training=True), 48, "epoch"),
    ("branch_record_arms", "cropped_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8,
                                                             training=False), 50, "epoch"),
    # (a batch size dividing the 50 examples: which ones a shuffled drop-remainder leaves out is random)
    ("branch_no_else", "id_rows", lambda d: dict(files=_files(d, "dict_*"), batch_size=5, training=True), 50,
     "epoch"),
    ("branch_no_else", "id_rows", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, training=False), 48,
     "epoch"),
    ("branch_no_else", "id_rows", lambda d: dict(files=_files(d, "dict_*"), batch_size=1, training=False), 50,
     "epoch"),
    # --- batchdown ---
    # A helper returning the batch its callers' records are handed down to: a literal flag, and a
    # flag computed at run time (the dataset shuffles under the caller's test).
    ("returned_batch_helper", "training_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=10), 100,
     "epoch"),
    ("returned_batch_helper", "split_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=10,
                                                              split="train"), 50, "epoch"),
    ("returned_batch_helper", "split_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=5,
                                                              split="test"), 50, "epoch"),
    # A helper returning its producer's queue, read by a reader helper once, or in a loop for batch_join.
    ("queue_source_helper", "single_reader_batches", lambda d: dict(data_dir=d, batch_size=8), 50, "epoch"),
    ("queue_source_helper", "reader_loop_batches", lambda d: dict(data_dir=d, batch_size=10), 100, "epoch"),
    # --- forwarding methods ---
    # A reader method handing its queue on to another reader method of the class.
    ("forwarding_method", "iris_batches", lambda d: dict(csv_files=_files(d, "iris_*"), batch_size=7), 90, "epoch"),
    # --- test_shuffle ---
    ("test_shuffle", "mode_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, mode="train"), 50,
     "epoch"),
    ("test_shuffle", "mode_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, mode="eval"), 50,
     "epoch"),
    ("test_shuffle", "unshuffled_when_evaluating", lambda d: dict(files=_files(d, "dict_*"), batch_size=8,
                                                                  mode="train"), 50, "epoch"),
    ("test_shuffle", "unshuffled_when_evaluating", lambda d: dict(files=_files(d, "dict_*"), batch_size=8,
                                                                  mode="eval"), 50, "epoch"),
    ("test_shuffle", "image_batches", lambda d: dict(pattern_files=_files(d, "png/*.png"), batch_size=8,
                                                     mode="train"), 37, "epoch"),
    ("test_shuffle", "one_record", lambda d: dict(files=_files(d, "dict_*"), mode="train"), 50, "epoch"),
    ("test_shuffle", "one_record", lambda d: dict(files=_files(d, "dict_*"), mode="eval"), 50, "epoch"),
    ("test_shuffle", "named_test_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, mode="train"),
     50, "epoch"),
    # --- pyfuncids ---
    # Example ids dequeued from a producer, loaded by a py_func into a dict, batched in either arm of
    # `if shuffle:`: every id once per epoch, whole batches (48 = 6 x 8), the same examples.
    ("dequeued_ids", "example_batches", lambda d: dict(count=48, batch_size=8, shuffle=True, epochs=2), 96,
     "epoch"),
    ("dequeued_ids", "example_batches", lambda d: dict(count=48, batch_size=8, shuffle=False, epochs=2), 96,
     "epoch"),
    # In-memory arrays batched with enqueue_many=True: their rows over and over, as a slice
    # producer without shuffle gives them (in_memory_rows); 20 batches, runs of one epoch.
    ("in_memory_rows", "shuffled_rows", lambda d: dict(count=40, batch_size=8, seed=3), 160, ("forever", 40)),
    ("in_memory_rows", "ordered_rows", lambda d: dict(count=30, batch_size=6), 120, ("forever", 30)),
    ("in_memory_rows", "table_rows", lambda d: dict(batch_size=7), 140, ("forever", 60)),
    # A RandomShuffleQueue of in-memory rows (array_queues), dequeued 8 at a time: 20 batches.
    ("array_queues", "mixed_batches", lambda d: dict(count=40, batch_size=8, seed=3), 160, ("forever", 40)),
    ("dequeued_ids", "example_batches", lambda d: dict(count=50, batch_size=8, shuffle=True), 160, ("forever", 50)),
    ("dequeued_ids", "example_batches", lambda d: dict(count=50, batch_size=8, shuffle=False), 160,
     ("forever", 50)),
    ("dequeued_ids", "labelled_paths", lambda d: dict(paths=["path/%d" % i for i in range(37)], batch_size=5), 37,
     "epoch"),
    # A batching helper's arms, chosen by the caller's flag: evaluation keeps one epoch of 50 in
    # batches of 8 (the last of 2); training shuffles, 20 batches.
    ("helper_arms_epochs", "inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, train=False,
                                                    num_epochs=1), 50, "epoch"),
    ("helper_arms_epochs", "inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 160, ("forever", 50)),
    # The ids batched as they are: batch([t]) gives the tensor itself, not a list of one.
    ("dequeued_ids", "id_batches", lambda d: dict(ids=["id%d" % i for i in range(23)], batch_size=4, epochs=2), 46,
     "epoch"),
    # --- viaprop ---
    # Reading methods called on an object of a proven class: through a property, and a module-level instance.
    ("instance_receivers", "train_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=10), 100, "epoch"),
    ("instance_receivers", "eval_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50, "epoch"),
    # A static record-source method with an assert, reached through a property (CRNN's shape, in one module).
    ("static_record_source", "train_inputs", lambda d: dict(dataset_dir_files=_files(d, "dict_*"), batch_size=10,
                                                            epochs=2), 100, "epoch"),
    # --- row join loops ---
    # n dequeues of one producer's file names in a loop, each read and decoded, for a *_join.
    ("row_join_loop", "image_batches", lambda d: dict(pattern_files=_files(d, "png/*.png"), batch_size=8), 37,
     "epoch"),
    ("row_join_loop", "named_batches", lambda d: dict(pattern_files=_files(d, "png/*.png"), batch_size=8), 74,
     "epoch"),
    # --- stateful captures ---
    ("stateful_capture", "offset_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50, "epoch"),
    # --- crossmod ---
    # Record-source methods reached through `store.files.method(...)` (a property of a local object).
    ("chained_receiver", "train_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=10), 100, "epoch"),
    ("chained_receiver", "per_file_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8), 50, "epoch"),
    # --- zipchains ---
    # Independent chains zipped: one thread, no shuffle: the same pairs (each example's fingerprint
    # holds both records) in the same multiset, ended by the shorter chain (50 examples, 90 lines).
    ("zipped_chains", "labelled_lines", lambda d: dict(csv_files=_files(d, "iris_*"), files=_files(d, "dict_*"),
                                                       batch_size=8), 50, "epoch"),
    # Two epochs of examples paired with an endless range producer, then shuffled as whole pairs.
    ("zipped_chains", "example_steps", lambda d: dict(files=_files(d, "dict_*"), batch_size=10), 100, "epoch"),
    # A reading method whose queue is also named in its name_scope's values: the record is named there now.
    ("class_reader_on_self", "method_batches", lambda d: dict(files=_files(d, "dict_*")), 80, ("forever", 50)),
    # Each chain shuffles its own files: the ids side keeps its two epochs (the pairs are random).
    ("zipped_chains", "shuffled_ids", lambda d: dict(files=_files(d, "dict_*"), csv_files=_files(d, "iris_*"),
                                                     batch_size=10), 100, "epoch"),
    # --- cellseg ---
    # Reader and file queue made in __init__, read by one method, batched by another (batch_join of
    # that one reader, a smaller last batch): the file names' dataset held under the queue's attribute.
    # 93 lines (three headers), one epoch in file order.
    ("class_held_queue", "pair_batches", lambda d: dict(csv_files=_files(d, "iris_*"), batch_size=10), 93, "epoch"),
    # --- modattr ---
    # A producer made before an `if`, read in both arms: made in each now; the training arm runs
    # (2 shuffled epochs of 50 through a reader helper, in whole batches).
    ("arm_producer", "batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=10, training=True), 100,
     "epoch"),
    # --- inception ---
    # Two readers fill a RandomShuffleQueue, dequeued once; 4 batch_join threads parse that record:
    # one map, 4 calls at a time, over the records of one epoch (each thread took its own record).
    ("handbuilt_join_threads", "joined_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=10,
                                                                num_epochs=1), 50, "epoch"),
    # --- style ---
    # A hand-built shuffling queue, then an if/else whose arm without batching takes one record per
    # run (expand_dims to a batch of one): 2 epochs of one file's 25 records, each once per epoch.
    ("single_or_batched", "texture_inputs", lambda d: dict(record_path=_files(d, "dict_*")[0], size=2, jitter=True,
                                                           epochs=2), 50, "epoch"),
    # --- monodepth ---
    # One reader for every mode; training works on each record again in its arm and batches it
    # (2 shuffled epochs of 50, whole batches of 10); testing stacks each record with its negation
    # and batches nothing: one record per run, two rows each, one epoch in file order.
    ("mode_tails", "mode_inputs", lambda d: dict(files=_files(d, "dict_*"), mode="train", batch_size=10, epochs=2),
     100, "epoch"),
    ("mode_tails", "mode_inputs", lambda d: dict(files=_files(d, "dict_*"), mode="test", batch_size=10, epochs=1),
     100, "epoch"),
    # The arm without batching comes first and takes the parsed features whole (a dict) from the map.
    ("mode_tails", "eval_first", lambda d: dict(files=_files(d, "dict_*"), evaluating=True, batch_size=10,
                                                epochs=1), 50, "epoch"),
    ("mode_tails", "eval_first", lambda d: dict(files=_files(d, "dict_*"), evaluating=False, batch_size=10,
                                                epochs=1), 50, "epoch"),
    # Each arm rebinds the record's own name before batching it: 3 ordered epochs, batches of 8 and a
    # smaller last one.
    ("mode_tails", "rebound_in_arms", lambda d: dict(files=_files(d, "dict_*"), training=False, batch_size=8,
                                                     epochs=3), 150, "epoch"),
    # Each arm returns: one record at a time as a batch of one, one epoch in file order.
    ("mode_tails", "returned_per_mode", lambda d: dict(files=_files(d, "dict_*"), train=False, batch_size=10,
                                                       epochs=1), 50, "epoch"),
    ("mode_tails", "returned_per_mode", lambda d: dict(files=_files(d, "dict_*"), train=True, batch_size=10,
                                                       epochs=2), 100, "epoch"),
    # The arm without batching holds an `if` of its own: each record and its negation, one epoch.
    ("mode_tails", "mirrored_views", lambda d: dict(files=_files(d, "dict_*"), mode="eval", batch_size=10,
                                                    epochs=1), 100, "epoch"),
    # Testing reads `right` only for a stereo model, the only one whose per-record code binds it:
    # the map function returns it there alone (each record and its negation, one shuffled epoch),
    # and a mono model takes one row a record; training batches in whole batches.
    ("mode_tails", "one_view_or_two", lambda d: dict(files=_files(d, "dict_*"), mode="test", batch_size=10,
                                                     stereo=True, epochs=1), 100, "epoch"),
    ("mode_tails", "one_view_or_two", lambda d: dict(files=_files(d, "dict_*"), mode="test", batch_size=10,
                                                     stereo=False, epochs=1), 50, "epoch"),
    ("mode_tails", "one_view_or_two", lambda d: dict(files=_files(d, "dict_*"), mode="train", batch_size=10,
                                                     stereo=True, epochs=2), 100, "epoch"),
    # --- hmr ---
    # A reading method kept for a pipeline that stays: the migrated one calls its record-taking copy
    # (2 shuffled epochs of 50, in whole batches of 5).
    ("kept_reader_method", "loader_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=5), 100, "epoch"),
    # --- flownet ---
    # `weight = None` outside the per-record code and the `offset=None` parameter, each replaced
    # per record under a condition: the map function starts from copies of them. 2 epochs in order.
    ("outer_rebinding", "weighted_inputs", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, num_epochs=2),
     100, "epoch"),
    # --- groupread ---
    # One reader read 12 times a run into a list, shuffle_batch(enqueue_many=True): 2 epochs of 50 in
    # file order, 12 in a row across the epoch end; the last group, the last 4 records, is lost: the
    # same 96 examples in whole batches of 4 (no partial batch for the shuffle to pick; without the
    # grouping there would be 100).
    ("grouped_reads", "grouped_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=4, group=12), 96,
     "epoch"),
    # --- hmrzip ---
    # A chain made before an if/else whose arm makes a second chain (both read by a reader helper),
    # batched after the `if`: the arm zips them. One thread, files in order: the same rows, each
    # naming both records of a pair, and 25 pairs (the first chain's one epoch ends the zip).
    ("zipped_arms", "paired_rows", lambda d: dict(files=_files(d, "dict_0*"), extra_files=_files(d, "dict_1*"),
                                                  batch_size=8), 50, "epoch"),
]


def _legacy_copy(before, folder, version):
    """The legacy program as it runs under `version`: under TF 2, through tf.compat.v1 in graph mode."""
    if version != "2":
        return before
    import re

    with open(before) as handle:
        text = handle.read()
    text, count = re.subn(r"^import tensorflow as (\w+)(.*)$",
                          r"import tensorflow.compat.v1 as \1\2\n\1.disable_eager_execution()", text, 1, re.M)
    assert count == 1, before
    path = os.path.join(folder, os.path.basename(before).replace(".before.py", ".legacy.py"))
    with open(path, "w") as handle:
        handle.write(text)
    return path


def _migrated_copy(before, folder, version):
    [result] = api.migrate([before], Options(target=TARGETS[version]))
    assert result.changed, "qmigrate did not rewrite %s" % before
    path = os.path.join(folder, os.path.basename(before).replace(".before.py", ".after_run.py"))
    with open(path, "wb") as handle:
        handle.write(result.new_source)
    return path


def _drain_both(python, before, after, function, args, max_batches, tmp_path):
    """run_pipeline.py's report for the legacy and the migrated program, run side by side."""
    runs = {}
    for label, path in (("before", before), ("after", after)):
        out = str(tmp_path / (label + ".json"))
        runs[label] = (start_tf(python, "run_pipeline.py", path, function, args, max_batches, out), out)
    for process, _ in runs.values():
        finish(process)
    return load_json(runs["before"][1]), load_json(runs["after"][1])


@pytest.mark.parametrize("name,function,arguments,expected,mode", CASES, ids=["%s-%s" % c[:2] for c in CASES])
def test_same_examples_before_and_after(name, function, arguments, expected, mode, data_dir, tmp_path, tf_version):

    python = tf_python(tf_version)
    before = _legacy_copy(os.path.join(SINGLE, name + ".before.py"), str(tmp_path), tf_version)
    after = _migrated_copy(before, str(tmp_path), tf_version)
    args = json.dumps(arguments(data_dir))
    max_batches = 10000 if mode == "epoch" else 20
    if mode != "epoch":
        mode, epoch = mode
    old, new = _drain_both(python, before, after, function, args, max_batches, tmp_path)

    assert new["kind"] == old["kind"]
    assert new["static_shapes"] == old["static_shapes"]
    assert len(new["examples"]) == expected
    if mode == "epoch":
        assert new["batch_shapes"] == old["batch_shapes"]
        assert Counter(new["examples"]) == Counter(old["examples"])
    else:
        # The queue's shuffle buffer spans epochs, so its first batches need not hold every example;
        # every example it did give must be one the migrated pipeline gives too.
        assert len(old["examples"]) == expected
        distinct = set(new["examples"])
        assert set(old["examples"]) <= distinct
        # The migrated pipeline shuffles within epochs (shuffle_and_repeat, or TF 2's fused
        # shuffle-then-repeat, keep epoch ends): each run of `epoch` examples is one epoch.
        assert len(distinct) == epoch
        for start in range(0, len(new["examples"]) - epoch + 1, epoch):
            assert sorted(new["examples"][start:start + epoch]) == sorted(distinct)


def test_a_shuffle_test_bound_where_the_producer_stood_keeps_its_meaning(data_dir, tmp_path):
    """`shuffle=options.mode == 'train'`, now bound where the producer stood and tested where the
    dataset is built: evaluating reads the 37 files in the same order as before; training reads
    them in another order (37 files in their sorted order by chance: once in 37! runs)."""
    python = tf_python("1.8")
    before = os.path.join(SINGLE, "test_shuffle.before.py")
    after = _migrated_copy(before, str(tmp_path), "1.8")
    files = _files(data_dir, "png/*.png")
    old, new = _drain_both(python, before, after, "image_batches",
                           json.dumps(dict(pattern_files=files, batch_size=8, mode="eval")), 100, tmp_path)
    assert len(new["examples"]) == 37
    assert new["examples"] == old["examples"]
    _, trained = _drain_both(python, before, after, "image_batches",
                             json.dumps(dict(pattern_files=files, batch_size=8, mode="train")), 100, tmp_path)
    assert Counter(trained["examples"]) == Counter(new["examples"])
    assert trained["examples"] != new["examples"]


def test_each_join_thread_copy_takes_its_turn_of_the_records(data_dir, tmp_path, tf_version):
    """A batch_join's 3 threads each ran their own copy of the per-record code (the loop's
    `thread_id` tags the record with 1000 * copy): before, each record went through some copy, as
    the threads took them; after, record i goes through copy i % 3. One epoch in file order, the
    same 50 ids and the same features (each as its copy made it) on both sides."""
    python = tf_python(tf_version)
    before = _legacy_copy(os.path.join(SINGLE, "thread_copies.before.py"), str(tmp_path), tf_version)
    after = _migrated_copy(before, str(tmp_path), tf_version)
    args = json.dumps(dict(files=_files(data_dir, "dict_*"), batch_size=5, num_threads=3))
    old, new = _drain_both(python, before, after, "tagged_batches", args, 100, tmp_path)
    copies, rows = {}, {}
    for label, report in (("before", old), ("after", new)):
        tags = [int(value) for batch in report["leading"] for value in batch]
        assert sorted(tag % 1000 for tag in tags) == list(range(50)), label
        copies[label] = [tag // 1000 for tag in tags]
        assert set(copies[label]) <= {0, 1, 2}, label
        for tag, row in zip(tags, report["examples"]):  # (id, copy) -> the whole row's fingerprint
            rows.setdefault((tag % 1000, tag // 1000), set()).add(row)
    assert copies["after"] == [index % 3 for index in range(50)]
    assert new["kind"] == old["kind"] and new["batch_shapes"] == old["batch_shapes"]
    # a record through a given copy gives the same row (its copy's features) before and after
    assert all(len(found) == 1 for found in rows.values())


def test_copies_of_an_indexed_slice_producer_take_their_number_by_keyword(tmp_path, tf_version):
    """The copies index a slice producer's list (`input_queue[0]`): the map function takes the
    tensors as `*input_queue`, so the copy's number after them is keyword-only and is passed by
    name (it was passed by position, a TypeError when the map was traced). The same 30 rows
    before and after; after, row i goes through copy i % 3 (which adds 1000 * copy)."""
    python = tf_python(tf_version)
    before = _legacy_copy(os.path.join(SINGLE, "thread_copies.before.py"), str(tmp_path), tf_version)
    after = _migrated_copy(before, str(tmp_path), tf_version)
    old, new = _drain_both(python, before, after, "sliced_tagged_batches", json.dumps(dict(batch_size=5)), 100,
                           tmp_path)
    tags = {label: [int(value) for batch in report["leading"] for value in batch]
            for label, report in (("before", old), ("after", new))}
    for label in tags:
        assert sorted(tag % 1000 for tag in tags[label]) == list(range(30)), label
        assert {tag // 1000 for tag in tags[label]} <= {0, 1, 2}, label
    assert [tag // 1000 for tag in tags["after"]] == [index % 3 for index in range(30)]
    assert new["kind"] == old["kind"] and new["batch_shapes"] == old["batch_shapes"]


@pytest.mark.parametrize("function", ("jittered", "seeded_jitter", "nested_jitter"))
def test_per_record_draws_keep_the_programs_graph_seed(function, data_dir, tmp_path, tf_version):
    """run_pipeline.py sets a graph seed. Per-record code that draws (in a helper of the module, or
    with an op seed) draws the same in every run of the migrated program, as in the queue's: the
    map function takes the program's seed, which its graph does not inherit before TF 1.15. With
    an op seed it draws the very numbers the queue's per-record code drew."""
    python = tf_python(tf_version)
    before = _legacy_copy(os.path.join(SINGLE, "seeded_draws.before.py"), str(tmp_path), tf_version)
    after = _migrated_copy(before, str(tmp_path), tf_version)
    args = json.dumps(dict(files=_files(data_dir, "dict_*"), batch_size=5))
    runs = []
    for round in (1, 2):
        folder = tmp_path / ("round%d" % round)
        folder.mkdir()
        runs.append(_drain_both(python, before, after, function, args, 100, folder))
    (old, new), (old_again, new_again) = runs
    assert len(new["examples"]) == len(old["examples"]) == 50
    assert old_again["examples"] == old["examples"]
    assert new_again["examples"] == new["examples"]
    if function == "seeded_jitter":
        assert new["examples"] == old["examples"]


@pytest.mark.parametrize("num_readers", (1, 2))
def test_records_made_either_way_in_the_arms_are_read_alike(num_readers, data_dir, tmp_path, tf_version):
    """record_arms: inception's shape, the record read through a queue of serialized records by 2
    readers or straight from 1 reader, then parsed by 2 thread copies (odd copies reverse `x` in
    training) and joined. 2 epochs of 50 examples in batches of 10, before and after: evaluating,
    the same examples; training, the same ids (each twice), each example as one of its two copies
    made it."""
    python = tf_python(tf_version)
    before = _legacy_copy(os.path.join(SINGLE, "record_arms.before.py"), str(tmp_path), tf_version)
    after = _migrated_copy(before, str(tmp_path), tf_version)
    with open(after) as handle:
        assert "batch_join" not in handle.read()
    rows = {}
    for train in (False, True):
        args = json.dumps(dict(files=_files(data_dir, "dict_*"), batch_size=10, train=train, num_epochs=2,
                               num_readers=num_readers))
        old, new = _drain_both(python, before, after, "id_batches", args, 100, tmp_path)
        assert new["kind"] == old["kind"] and new["batch_shapes"] == old["batch_shapes"] == [[[10], [10, 3]]] * 10
        for label, report in (("before", old), ("after", new)):
            ids = [int(value) for batch in report["leading"] for value in batch]
            assert sorted(ids) == sorted(list(range(50)) * 2), (train, label)
            for index, row in zip(ids, report["examples"]):
                rows.setdefault((train, index), set()).add(row)
        if not train:
            assert Counter(new["examples"]) == Counter(old["examples"])
    # evaluating, one row per id; training, the rows of both copies (reversed or not), and no other
    assert all(len(found) == 1 for (train, _), found in rows.items() if not train)
    assert all(len(found) <= 2 for found in rows.values())
    assert any(len(found) == 2 for (train, _), found in rows.items() if train)


@pytest.mark.parametrize("compressed,pattern,count", ((True, "gzip_*", 30), (False, "dict_*", 50)))
def test_a_batching_copied_into_each_reader_arm_reads_the_same_examples(compressed, pattern, count, data_dir,
                                                                          tmp_path, tf_version):
    """record_arms without a queue before the `if`: a GZIP reader in one arm, a plain one in the
    other, one batching after it, copied into each arm. One epoch in file order, batches of 7 (the
    last one short), the same examples in the same order before and after."""
    python = tf_python(tf_version)
    before = _legacy_copy(os.path.join(SINGLE, "record_arms.before.py"), str(tmp_path), tf_version)
    after = _migrated_copy(before, str(tmp_path), tf_version)
    args = json.dumps(dict(files=_files(data_dir, pattern), batch_size=7, compressed=compressed))
    old, new = _drain_both(python, before, after, "either_reader", args, 100, tmp_path)
    assert len(new["examples"]) == count
    assert new["examples"] == old["examples"]
    assert new["kind"] == old["kind"] and new["batch_shapes"] == old["batch_shapes"]


def test_a_script_built_at_module_level_reads_the_same_examples(data_dir, tmp_path):
    """A script whose pipeline is module-level code, read through helpers whose parameter and
    locals reuse the script's names (Python scopes tell them apart), drained under TF 1.8: the
    same 2 epochs of 120 examples in batches of 20, before and after."""
    python = tf_python("1.8")
    before = os.path.join(SINGLE, "module_script_shadowed.before.py")
    after = _migrated_copy(before, str(tmp_path), "1.8")
    env = {"MNIST_DIR": data_dir, "BATCH_SIZE": "20"}
    runs = {}
    for label, path in (("before", before), ("after", after)):
        out = str(tmp_path / (label + ".json"))
        runs[label] = (start_tf(python, "run_pipeline.py", path, "batches", "{}", 10000, out, env=env), out)
    for process, _ in runs.values():
        finish(process)
    old, new = (load_json(runs[label][1]) for label in ("before", "after"))
    assert len(new["examples"]) == 240
    assert new["static_shapes"] == old["static_shapes"] == [[20, 784], [20]]
    assert new["batch_shapes"] == old["batch_shapes"]
    assert Counter(new["examples"]) == Counter(old["examples"])


@pytest.mark.parametrize("tf_version", ("1.8", "1.15"), ids=lambda v: "tf" + v)  # 2.16+ has no tf.estimator
@pytest.mark.parametrize("golden", ("estimator_input_fn", "learn_estimator_input_fn"))
def test_estimator_trains_the_same_from_the_migrated_input_fn(golden, data_dir, tmp_path, tf_version):
    """A core Estimator's input_fn now returns a Dataset, tf.contrib.learn's the iterator's next
    batch (it unpacks `features, labels = input_fn()`); each trains and evaluates as before."""

    python = tf_python(tf_version)
    before = os.path.join(SINGLE, golden + ".before.py")
    after = _migrated_copy(before, str(tmp_path), tf_version)
    files = json.dumps(_files(data_dir, "dict_*"))
    runs = []
    for label, path in (("before", before), ("after", after)):
        out = str(tmp_path / (label + ".json"))
        runs.append((start_tf(python, "train_estimator.py", path, files, tmp_path / label, 20, out), out))
    metrics = []
    for process, out in runs:
        finish(process)
        metrics.append(load_json(out))
    old, new = metrics
    assert new["global_step"] == old["global_step"] == 20 * 50 // 10  # 20 epochs of 50 examples, batches of 10
    assert new["accuracy"] >= 0.8 and old["accuracy"] >= 0.8  # baseline 0.5; measured 0.88 both
    assert abs(new["accuracy"] - old["accuracy"]) <= 0.1
    assert abs(new["loss"] - old["loss"]) <= 0.1 * max(old["loss"], 0.1)


@pytest.mark.parametrize("tf_version", ("1.8", "1.15"), ids=lambda v: "tf" + v)  # TF 2 has no slim
@pytest.mark.parametrize("function,arguments", [
    ("clone_batches", dict(batch_size=5, num_clones=2)),
    ("tower_batches", dict(batch_size=5, num_towers=2)),
    ("tower_batches", dict(batch_size=4, num_towers=3)),  # 25 batches: the last step's 1 of 3 is lost, both sides
])
def test_a_prefetch_queue_of_a_batch_becomes_its_iterator(function, arguments, tf_version, data_dir, tmp_path):
    """Each clone (or tower) dequeued a batch of its own from slim's prefetch queue; each
    get_next() of the one iterator that replaces it takes its own too: the same examples, each
    once per epoch, over 2 epochs (the migrated program must not have the queue left)."""
    python = tf_python(tf_version)
    before = os.path.join(SINGLE, "prefetched_batches.before.py")
    after = _migrated_copy(before, str(tmp_path), tf_version)
    with open(after) as handle:
        assert handle.read().count("prefetch_queue.prefetch_queue(") == 1  # only sized_batches keeps one
    args = json.dumps(dict(arguments, files=_files(data_dir, "dict_*")))
    old, new = _drain_both(python, before, after, function, args, 10000, tmp_path)
    towers = arguments.get("num_clones", arguments.get("num_towers"))
    steps, left = divmod(100, arguments["batch_size"] * towers)
    assert len(new["examples"]) == len(old["examples"]) == steps * arguments["batch_size"] * towers
    assert new["static_shapes"] == old["static_shapes"]
    assert new["batch_shapes"] == old["batch_shapes"]
    if not left:
        assert Counter(new["examples"]) == Counter(old["examples"])
    else:  # which examples the lost batches held depends on the shuffled file order, on both sides
        for run in (old, new):
            assert len(set(run["examples"])) == 50 and max(Counter(run["examples"]).values()) <= 2


@pytest.mark.parametrize("tf_version", ("1.8", "1.15"), ids=lambda v: "tf" + v)  # TF 2 has no slim
@pytest.mark.parametrize("function", ("evaluate", "pixel_sums"))
def test_loops_in_slim_queue_runner_blocks_read_the_same_batches(function, tf_version, data_dir, tmp_path):
    """`with slim.queues.QueueRunners(sess):` goes with the queues (QM504): the loop it held, now
    one level out, and the one in a `with` that keeps the session, read what they read before."""
    python = tf_python(tf_version)
    before = _legacy_copy(os.path.join(SINGLE, "slim_queue_runners.before.py"), str(tmp_path), tf_version)
    after = _migrated_copy(before, str(tmp_path), tf_version)
    args = json.dumps(dict(filenames=_files(data_dir, "mnist_*"), batch_size=10, steps=7))
    runs = {}
    for label, path in (("before", before), ("after", after)):
        out = str(tmp_path / (label + ".json"))
        runs[label] = (start_tf(python, "call_function.py", path, function, args, out), out)
    got = {}
    for label, (process, out) in runs.items():
        finish(process)
        got[label] = load_json(out)
    assert len(got["before"]) == 70
    assert got["after"] == got["before"]


def test_python_threads_taking_rows_from_one_dequeue_take_them_all_once(tf_version, tmp_path):
    """unbatched_rows.copied_pairs: three threads of the program's own run the one dequeue (now a
    get_next) until the rows run out; together they took every pair once, before and after, and
    the coordinator joined them through the runners' thread list (now `threads = []`)."""
    python = tf_python(tf_version)
    before = _legacy_copy(os.path.join(SINGLE, "unbatched_rows.before.py"), str(tmp_path), tf_version)
    after = _migrated_copy(before, str(tmp_path), tf_version)
    pairs = [["src%02d" % i, "dst%02d" % i] for i in range(40)]
    args = json.dumps(dict(pairs=pairs, workers=3))
    runs = {}
    for label, path in (("before", before), ("after", after)):
        out = str(tmp_path / (label + ".json"))
        runs[label] = (start_tf(python, "call_function.py", path, "copied_pairs", args, out), out)
    got = {}
    for label, (process, out) in runs.items():
        finish(process)
        got[label] = load_json(out)
    assert got["before"] == sorted("%s>%s" % (a, b) for a, b in pairs)
    assert got["after"] == got["before"]


def test_indexed_rows_with_declared_shapes_give_every_file_once(data_dir, tmp_path, tf_version):
    """indexed_rows_join.file_sizes: three copies of the per-record code read the slice producer's
    list by index, batch_join declares the shape of an item of it, and the per-record name is
    reused for the output file after the batches: the same size and label for every file."""
    python = tf_python(tf_version)
    before = _legacy_copy(os.path.join(SINGLE, "indexed_rows_join.before.py"), str(tmp_path), tf_version)
    after = _migrated_copy(before, str(tmp_path), tf_version)
    paths = _files(data_dir, "png/*.png")
    runs = {}
    for label, path in (("before", before), ("after", after)):
        out, written = str(tmp_path / (label + ".json")), str(tmp_path / (label + ".sizes.json"))
        args = json.dumps(dict(paths=paths, labels=[i % 5 for i in range(len(paths))], batch_size=4,
                               out_path=written))
        runs[label] = (start_tf(python, "call_function.py", path, "file_sizes", args, out), out, written)
    got = {}
    for label, (process, out, written) in runs.items():
        finish(process)
        got[label] = (load_json(out), load_json(written))
    assert len(got["before"][0]) == len(paths) == 37
    assert [kind for _, kind in got["before"][0]] == [i % 5 for i in range(37)]
    assert got["after"] == got["before"]


def test_guard_on_the_range_limit_still_fails_with_its_message(tmp_path, tf_version):
    """The PTB reader's `assert_positive(epoch_size, message=...)` guards the range producer under a
    control dependency. A one-shot iterator captures the limit by value without it, so the rewrite
    puts the guard on get_next: data too short for one step fails with the user's message, before
    and after, instead of a bare end of sequence."""
    python = tf_python(tf_version)
    before = _legacy_copy(os.path.join(SINGLE, "ptb_producer.before.py"), str(tmp_path), tf_version)
    after = _migrated_copy(before, str(tmp_path), tf_version)
    args = json.dumps(dict(raw_data=list(range(10)), batch_size=4, num_steps=5))  # epoch_size == 0
    for path in (before, after):
        code, stderr = run_tf_status(python, "run_pipeline.py", path, "ptb_producer", args, 3, tmp_path / "out.json",
                                     timeout=300)
        assert code != 0, path
        assert "epoch_size == 0, decrease batch_size or num_steps" in stderr, (path, stderr[-2000:])


def test_no_file_names_still_fails_with_the_producers_message(tmp_path, tf_version):
    """string_input_producer asserts that its names are not empty. Names listed by a pattern are a
    tensor: unshuffled, the dataset of their slices would be an empty epoch (the end of training,
    for a loop that stops at OutOfRangeError), and a one-shot iterator drops a control dependency
    on the names, so the check runs in a dataset function (file_guard.py): a pattern that matches
    nothing fails with the producer's message, before and after."""
    python = tf_python(tf_version)
    before = _legacy_copy(os.path.join(SINGLE, "glob_files.before.py"), str(tmp_path), tf_version)
    after = _migrated_copy(before, str(tmp_path), tf_version)
    empty = tmp_path / "no_data"
    empty.mkdir()
    args = json.dumps(dict(data_dir=str(empty), batch_size=10))
    for path in (before, after):
        code, stderr = run_tf_status(python, "run_pipeline.py", path, "pattern_inputs", args, 3,
                                     tmp_path / "out.json", timeout=300)
        assert code != 0, path
        assert "string_input_producer requires a non-null input tensor" in stderr, (path, stderr[-2000:])


def test_per_record_guards_still_fail_with_their_message(data_dir, tmp_path):
    """Asserts under a control dependency in the per-record code move into the map function with
    it: a record that breaks one fails the migrated pipeline with the user's message too (TF 1.8)."""
    python = tf_python("1.8")
    before = _legacy_copy(os.path.join(SINGLE, "record_guards.before.py"), str(tmp_path), "1.8")
    after = _migrated_copy(before, str(tmp_path), "1.8")
    args = json.dumps(dict(files=_files(data_dir, "dict_*"), batch_size=8, max_id=3))
    for path in (before, after):
        code, stderr = run_tf_status(python, "run_pipeline.py", path, "guarded_inputs", args, 10,
                                     tmp_path / "out.json", timeout=300)
        assert code != 0, path
        assert "example id out of range" in stderr, (path, stderr[-2000:])


# name, function, arguments, examples expected in one run, the bucket boundaries. TF 2 has no
# tf.contrib.training, so the legacy side cannot run there.
BUCKET_CASES = [
    ("bucketed_lengths", "char_buckets", lambda d: dict(csv_files=_files(d, "iris_*"), batch_size=7), 90, [16, 17]),
    # 2 epochs: 20 lines of 15 characters and 160 of 16; full batches of 7 only: 14 + 154.
    ("bucketed_lengths", "full_buckets", lambda d: dict(csv_files=_files(d, "iris_*"), batch_size=7), 168,
     [16, 17]),
    ("bucketed_lengths", "kept_buckets", lambda d: dict(files=_files(d, "dict_*"), batch_size=4), 40, [2, 4]),
    ("bucketed_lengths", "sliced_buckets", lambda d: dict(batch_size=3), 40, [3, 6]),
    # --- slim2 ---
    # lengths id % 7 of 50 examples: 15, 14 and 21 in the 3 buckets; full batches of 4 only: 12 + 12 + 20.
    ("computed_final_batch", "bucketed", lambda d: dict(files=_files(d, "dict_*"), batch_size=4), 50, [2, 4]),
    ("computed_final_batch", "bucketed", lambda d: dict(files=_files(d, "dict_*"), batch_size=4, keep_last=False),
     44, [2, 4]),
    ("computed_final_batch", "bucketed", lambda d: dict(files=_files(d, "dict_*"), batch_size=4, max_length=4), 36,
     [2, 4]),
    # --- t2t ---
    # Records returned by one function, bucketed by another with one batch size per bucket: lengths
    # id % 7 + 1 of 50 examples, the 7 of length 7 dropped by keep_input; 8, 14 and 21 left in the
    # buckets, full batches of 4, 3 and 2 only: 8 + 12 + 20.
    ("bucketed_records", "bucketed_examples", lambda d: dict(files=_files(d, "dict_*"), batch_sizes=[4, 3, 2],
                                                             boundaries=[1, 3], max_length=6), 40, [2, 4]),
    # Both functions in a name scope, slim's parallel_read, the length the longest of the fields (a
    # loop), one batch size for every bucket (an int, not a list), final partial batches kept:
    # lengths max(3, id % 5) of 50 examples, 40 of 3 and 10 of 4.
    ("scoped_bucketed_records", "example_batches", lambda d: dict(files=_files(d, "dict_*"), batch_sizes=3,
                                                                  boundaries=[3]), 50, [4]),
]


def _bucket_of(length, boundaries):
    return sum(1 for boundary in boundaries if boundary <= length)


@pytest.mark.parametrize("tf_version", ("1.8", "1.15"), ids=lambda v: "tf" + v)
@pytest.mark.parametrize("name,function,arguments,expected,boundaries", BUCKET_CASES,
                         ids=["%s-%s" % c[:2] for c in BUCKET_CASES])
def test_bucketed_batches_before_and_after(name, function, arguments, expected, boundaries, data_dir, tmp_path,
                                           tf_version):
    """bucket_by_sequence_length → group_by_window: the same examples with the same padding (each
    row's fingerprint includes its padding, so batch composition shows), the same batch shapes,
    every batch from one bucket. Batches of different buckets may come in another order: the
    queue's order between buckets was up to its runner threads."""

    python = tf_python(tf_version)
    before = os.path.join(SINGLE, name + ".before.py")
    after = _migrated_copy(before, str(tmp_path), tf_version)
    old, new = _drain_both(python, before, after, function, json.dumps(arguments(data_dir)), 10000, tmp_path)

    assert new["kind"] == old["kind"]
    assert new["static_shapes"] == old["static_shapes"]
    assert len(old["examples"]) == len(new["examples"]) == expected
    assert Counter(new["examples"]) == Counter(old["examples"])
    shapes = lambda run: Counter(json.dumps(batch) for batch in run["batch_shapes"])  # noqa: E731
    assert shapes(new) == shapes(old)
    for run in (old, new):
        assert len({_bucket_of(length, boundaries) for lengths in run["leading"] for length in lengths[:1]}) > 1
        for lengths in run["leading"]:
            assert len({_bucket_of(length, boundaries) for length in lengths}) == 1, lengths


# --- maskrcnn ---
def _refines(after, before) -> bool:
    """Whether static shape `after` is `before` or more specific (None: unknown rank or dimension)."""
    if before is None:
        return True
    return after is not None and len(after) == len(before) and all(
        b is None or a == b for a, b in zip(after, before))


@pytest.mark.parametrize("function,arguments,expected", [
    # A FIFOQueue of 30 rows, 3 runner threads, dequeued one at a time: 20 steps of one row.
    ("ordered_rows", {}, 20),
    # A FIFOQueue of one array, one thread, dequeued 7 rows at a time: 20 batches, 4 times round and more.
    ("table_batches", dict(batch_size=7), 140),
], ids=["ordered_rows", "table_batches"])
def test_rows_of_in_memory_arrays_come_in_the_same_order(function, arguments, expected, tmp_path, tf_version):
    """array_queues: a FIFOQueue filled by enqueue_many of NumPy arrays gives their rows in order,
    over and over, whatever its number of threads (each run of the enqueue op puts in all its rows
    before the next run's); the dataset of the rows, repeated, gives the same rows in the same
    order, cast to the queue's dtypes (float64 features to float32, int64 ids to int32): the
    same sequence of fingerprints, shapes and structure."""
    python = tf_python(tf_version)
    before = _legacy_copy(os.path.join(SINGLE, "array_queues.before.py"), str(tmp_path), tf_version)
    after = _migrated_copy(before, str(tmp_path), tf_version)
    old, new = _drain_both(python, before, after, function, json.dumps(arguments), 20, tmp_path)
    assert new["kind"] == old["kind"]
    assert new["static_shapes"] == old["static_shapes"]
    assert new["batch_shapes"] == old["batch_shapes"]
    assert len(new["examples"]) == expected
    assert new["examples"] == old["examples"]


def test_indices_taken_many_at_a_time_keep_their_epochs(tmp_path, tf_version):
    """range_batches: a range producer's dequeue_many(n) is a batch of n after the repeat. 20
    fetches of 15 shuffled indices of 10 (30 epochs, batches across their ends): before and after,
    every run of 10 indices is a permutation of the 10 (each epoch whole, in its own order, not
    always the same); the same static shape. dequeue_up_to over two ordered epochs of 7: the same batches, the
    last of 2. A `shuffle` parameter, tested where the dataset is built: in order, or shuffled per epoch."""
    python = tf_python(tf_version)
    before = _legacy_copy(os.path.join(SINGLE, "range_batches.before.py"), str(tmp_path), tf_version)
    after = _migrated_copy(before, str(tmp_path), tf_version)
    old, new = _drain_both(python, before, after, "shuffled_indices",
                           json.dumps(dict(count=10, batch_size=5, steps_per_epoch=3)), 20, tmp_path)
    assert new["static_shapes"] == old["static_shapes"] == [[15]]
    for run in (old, new):
        indices = [i for batch in run["leading"] for i in batch]
        assert len(indices) == 300
        assert all(sorted(indices[start:start + 10]) == list(range(10)) for start in range(0, 300, 10))
        assert len({tuple(indices[start:start + 10]) for start in range(0, 300, 10)}) > 1  # shuffled anew
    old, new = _drain_both(python, before, after, "ordered_indices", json.dumps(dict(count=7, batch_size=3)),
                           100, tmp_path)
    assert new["static_shapes"] == old["static_shapes"]
    assert new["leading"] == old["leading"] == [[0, 1, 2], [3, 4, 5], [6, 0, 1], [2, 3, 4], [5, 6]]
    # A `shuffle` parameter, which the producer tested in Python as the dataset does: 4 epochs of
    # 6 steps, in order when false, each epoch a permutation of its own when true.
    old, new = _drain_both(python, before, after, "step_indices", json.dumps(dict(epoch_size=6)), 24, tmp_path)
    assert new["leading"] == old["leading"] == [[i % 6] for i in range(24)]
    old, new = _drain_both(python, before, after, "step_indices", json.dumps(dict(epoch_size=6, shuffle=True)),
                           24, tmp_path)
    for run in (old, new):
        steps = [batch[0] for batch in run["leading"]]
        assert all(sorted(steps[start:start + 6]) == list(range(6)) for start in range(0, 24, 6))
        assert steps != [i % 6 for i in range(24)]


def test_a_script_that_starts_its_runner_by_hand_reads_the_same_rows(tmp_path, tf_version):
    """array_queue_script: a module-level queue of in-memory rows whose runner the script starts
    itself (`runner.create_threads(sess, coord=coord, start=True)`) and joins; migrated, its
    thread list is empty and the dataset gives the rows. 50 steps over 40 rows: the same rows,
    values and dtypes (float32, int32), in the same order, wrapping round."""
    python = tf_python(tf_version)
    before = _legacy_copy(os.path.join(SINGLE, "array_queue_script.before.py"), str(tmp_path), tf_version)
    after = _migrated_copy(before, str(tmp_path), tf_version)
    reads = {}
    for label, path in (("before", before), ("after", after)):
        out = str(tmp_path / (label + ".json"))
        finish(start_tf(python, path, out, 50))
        reads[label] = load_json(out)
    assert len(reads["after"]) == 50
    assert reads["after"] == reads["before"]
    assert reads["after"][40:] == reads["after"][:10]
    assert {tuple(row[2:]) for row in reads["after"]} == {("float32", "int32")}


def test_an_assert_that_the_runners_started_goes_with_them(data_dir, tmp_path, tf_version):
    """asserted_runners: `assert len(runners) > 0` after start_queue_runners. Migrated, it went on
    checking a list that is empty now (AssertionError on every run); it goes with the start, and
    the script reads the same 50 ids before and after."""
    python = tf_python(tf_version)
    before = _legacy_copy(os.path.join(SINGLE, "asserted_runners.before.py"), str(tmp_path), tf_version)
    after = _migrated_copy(before, str(tmp_path), tf_version)
    with open(after) as handle:
        assert "assert len(runners)" not in handle.read()
    reads = {}
    for label, path in (("before", before), ("after", after)):
        out = str(tmp_path / (label + ".json"))
        finish(start_tf(python, path, out, *_files(data_dir, "dict_*")))
        reads[label] = load_json(out)
    assert sorted(reads["before"]) == sorted(reads["after"]) == list(range(50))


@pytest.mark.parametrize("function,arguments,expected", [
    # A RandomShuffleQueue of parsed records, 3 runner threads, dequeued one at a time: 2 epochs of 50.
    ("mixed_records", lambda d: dict(files=_files(d, "dict_*")), 100),
    # A FIFOQueue of 2 threads reading ahead of a record source: one epoch, one record per step.
    ("read_ahead", lambda d: dict(files=_files(d, "dict_*")), 50),
], ids=["mixed_records", "read_ahead"])
def test_single_record_queue_gives_the_same_records(function, arguments, expected, data_dir, tmp_path):
    """single_record_queue: a hand-built queue dequeued one record at a time, no batching after.
    The queues have no `shapes=`, so their dequeue had no static shape; the dataset's element has
    the map's: the same or more specific, never in conflict. Same records per epoch (multiset),
    the same shape of every record and the same structure."""
    python = tf_python("1.8")
    before = os.path.join(SINGLE, "single_record_queue.before.py")
    after = _migrated_copy(before, str(tmp_path), "1.8")
    old, new = _drain_both(python, before, after, function, json.dumps(arguments(data_dir)), 10000, tmp_path)
    assert new["kind"] == old["kind"]
    assert len(old["static_shapes"]) == len(new["static_shapes"])
    assert all(_refines(a, b) for a, b in zip(new["static_shapes"], old["static_shapes"]))
    assert len(new["examples"]) == expected
    assert new["batch_shapes"] == old["batch_shapes"]
    assert Counter(new["examples"]) == Counter(old["examples"])


# --- retds ---
@pytest.mark.parametrize("name,function,arguments,expected", [
    # slim reads; the reader returns a namedtuple and a count; padded batches of 8 without the
    # final partial one (one thread: with more the queue drops 2 examples and pads groups at
    # random); a name the per-record code binds again is renamed in the map function: 48 of 50.
    ("returned_dataset", "batched_tensors", lambda d: dict(files=_files(d, "dict_*"), batch_size=8, threads=1),
     48),
    # A producer -> reader chain returns a tuple, whose parts reach the batcher's map function as
    # its arguments; the final partial batch is kept: 100 examples, two epochs.
    ("returned_tuple_records", "scaled_batches", lambda d: dict(files=_files(d, "dict_*"), batch_size=8,
                                                                epochs=2), 100),
], ids=["returned_dataset", "returned_tuple_records"])
def test_records_returned_to_a_batching_function_give_the_same_batches(name, function, arguments, expected,
                                                                        data_dir, tmp_path):
    """returned_dataset: records one function returns, handed by its caller to another function
    that works on each record and batches them. Migrated, the reader returns the mapped dataset
    and the batcher maps and batches it: the same examples, the same static shapes and the same
    batch shapes."""
    python = tf_python("1.8")
    before = os.path.join(SINGLE, name + ".before.py")
    after = _migrated_copy(before, str(tmp_path), "1.8")
    old, new = _drain_both(python, before, after, function, json.dumps(arguments(data_dir)), 10000, tmp_path)
    assert new["kind"] == old["kind"]
    assert new["static_shapes"] == old["static_shapes"]
    assert len(old["examples"]) == len(new["examples"]) == expected
    assert new["batch_shapes"] == old["batch_shapes"]
    assert Counter(new["examples"]) == Counter(old["examples"])


# --- style2 ---
@pytest.mark.parametrize("batch_size,shapes", ((None, [[1, 1, 3, 1], [1], [1], [1]]),
                                               (5, [[5, 1, 3, 1], [5], [5], [5]])), ids=("records", "batches"))
def test_a_batch_split_after_it_reads_the_same_examples_on_both_paths(batch_size, shapes, data_dir, tmp_path):
    """A flat list `[swatch, tag] + columns` batched, then split by the statements after the
    batching; the other path takes one record per run. Both paths now split the dataset's element,
    the same list: 2 shuffled epochs of one file's 25 records, each once per epoch (TF 1.8)."""
    python = tf_python("1.8")
    before = os.path.join(SINGLE, "single_or_batched.before.py")
    after = _migrated_copy(before, str(tmp_path), "1.8")
    args = json.dumps(dict(record_path=_files(data_dir, "dict_*")[0], batch_size=batch_size, epochs=2))
    old, new = _drain_both(python, before, after, "swatch_columns", args, 10000, tmp_path)
    assert new["kind"] == old["kind"] == "(T, T, {high: T, low: T})"
    assert new["static_shapes"] == old["static_shapes"] == shapes
    assert len(new["examples"]) == 50
    assert new["batch_shapes"] == old["batch_shapes"]
    assert Counter(new["examples"]) == Counter(old["examples"])
