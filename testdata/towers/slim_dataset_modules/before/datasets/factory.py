"""Datasets by name."""
from datasets import digits, shapes

BY_NAME = {'digits': digits, 'shapes': shapes}


def get_dataset(name, split_name, dataset_dir):
    if name not in BY_NAME:
        raise ValueError('unknown dataset %s' % name)
    return BY_NAME[name].get_split(split_name, dataset_dir)
