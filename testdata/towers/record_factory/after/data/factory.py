"""Which records a run reads: the record files of a split, decoded, then prepared for the model."""
import glob
import os

import tensorflow as tf

from data import records


def get_examples(data_dir, split_name, pattern=None, is_training=False):
    if pattern is None:
        pattern = split_name + '_*'
    record_files = sorted(glob.glob(os.path.join(data_dir, pattern)))
    dataset = records.read(record_files)

    def prepare_record(values, example_id):
        if is_training:
            values = values * 2.0 + 1.0
        return values, example_id

    return dataset.map(prepare_record)
