"""Where the photo records of a subset live, and how one is read."""
import glob
import os

import tensorflow as tf


class PhotoSet(object):
    """The TFRecord files of one subset ('train' or 'validation')."""

    def __init__(self, subset, data_dir='/tmp/photos'):
        self.subset = subset
        self.data_dir = data_dir

    def data_files(self):
        pattern = os.path.join(self.data_dir, '%s-*' % self.subset)
        return sorted(glob.glob(pattern))

    def reader(self):
        """Return a reader for one serialized example of the subset."""
        return tf.TFRecordReader()
