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

        def parse_record(serialized):
            contexts, features = tf.parse_single_sequence_example(
                serialized=serialized,
                context_features={"id": tf.FixedLenFeature(shape=[], dtype=tf.int64)},
                sequence_features={"frames": tf.FixedLenSequenceFeature(shape=[2], dtype=tf.float32)})
            features["id"] = contexts["id"]
            features["frames"] = tf.reshape(pad_steps(features["frames"], MAX_STEPS), [MAX_STEPS, 2])
            features["length"] = tf.shape(features["frames"])[0]
            return features

        dataset = tf.data.Dataset.from_tensor_slices(file_names)
        if shuffle:
            dataset = dataset.shuffle(tf.size(file_names, out_type=tf.int64))
        dataset = dataset.flat_map(tf.data.TFRecordDataset)
        dataset = dataset.map(parse_record)
        dataset = dataset.apply(tf.contrib.data.shuffle_and_repeat(batch_size, num_epochs))
        dataset = dataset.batch(batch_size)
        dataset = dataset.prefetch(1)
        batch_features = dataset.make_one_shot_iterator().get_next()
        labels = batch_features.pop("id")
        return batch_features, labels
    return _input_fn
