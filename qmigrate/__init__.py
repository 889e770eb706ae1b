"""qmigrate: rewrite TensorFlow 1.x queue-based input pipelines into tf.data."""
__version__ = "0.1.0"
