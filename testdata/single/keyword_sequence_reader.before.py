"""An Estimator input function that names every argument (`reader.read(queue=...)`,
`tensors=`) and parses SequenceExamples into a context dict and a sequence dict."""
import tensorflow as tf

MAX_STEPS = 5


def pad_steps(frames, length):
    """The first `length` frames, zero-padded to that many."""
    frames = frames[:length]
    return tf.pad(frames, [[0, length - tf.shape(frames)[0]], [0, 0]])


def make_input_fn(file_names, batch_size, mode):
    def _input_fn():
        if mode == tf.estimator.ModeKeys.TRAIN:
            num_epochs = None  # forever
            shuffle = True
        else:
            num_epochs = 1
            shuffle = False

        # A queue of file names, read with a TFRecord reader
        filename_queue = tf.train.string_input_producer(string_tensor=file_names, num_epochs=num_epochs,
                                                        shuffle=shuffle)
        reader = tf.TFRecordReader()
        _, serialized = reader.read(queue=filename_queue)

        contexts, features = tf.parse_single_sequence_example(
            serialized=serialized,
            context_features={"id": tf.FixedLenFeature(shape=[], dtype=tf.int64)},
            sequence_features={"frames": tf.FixedLenSequenceFeature(shape=[2], dtype=tf.float32)})
        features["id"] = contexts["id"]
        features["frames"] = tf.reshape(pad_steps(features["frames"], MAX_STEPS), [MAX_STEPS, 2])
        features["length"] = tf.shape(features["frames"])[0]

        batch_features = tf.train.shuffle_batch(
            tensors=features,
            batch_size=batch_size,
            capacity=batch_size * 10,
            min_after_dequeue=batch_size,
            num_threads=1,
            enqueue_many=False,
            allow_smaller_final_batch=True)
        labels = batch_features.pop("id")
        return batch_features, labels
    return _input_fn
