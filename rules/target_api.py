"""TensorFlow APIs that the target version does not have, in the files qmigrate migrates or reports."""
from qmigrate.diagnostics import Safety
from qmigrate.rules.base import Example, Rule, example_source


class ApiNotInTarget(Rule):
    """The file uses a `tf.*` name that the target TensorFlow version does not have.

    ## Why
    The migrated code needs TF 1.4 or later (tf.data), so a file that still calls an API removed
    before that, such as `tf.image.per_image_whitening` (gone since TF 1.0), can run under no
    version at all. The same holds for names that came after the target (`tf.compat.v1` on 1.8) or
    left before it (`tf.contrib`, `tf.placeholder` on 2.x). Each such reference is reported where it
    is written, with the name that replaced it when that is known for sure. So is a call spelled with
    a signature TensorFlow 1.0 changed, which fails on every target as a missing name does (measured
    under 1.8): `tf.concat(2, values)` (now `tf.concat(values, axis)`), `tf.split(split_dim,
    num_split, value)` (now `tf.split(value, num_or_size_splits, axis)`),
    `tf.image.resize_images(images, height, width)` (now a size), and the cross-entropy losses
    given positional arguments (now named only).

    ## Fix safety
    Manual: reported, never changed. It fails a check like any finding left in the code; it is only
    looked for in files that hold queue code (migrated or not).

    ## Limitations
    Judged from the target's symbol table (generated from the real wheel): names under `tf.contrib`
    in 1.x, under `tensorflow.python`, and attributes of classes and functions are not judged; names
    are resolved through imports and module-level aliases, not through function arguments. Files
    without queue code (including ones already migrated) are not checked.
    """

    code = "QM906"
    safety = Safety.MANUAL
    message = "the file uses a TensorFlow API that its target version does not have"
    advice = "use the API that replaced it in the target version, or choose the --target the code was written for"
    examples = (
        Example(
            before=example_source("""
            import tensorflow as tf

            def inputs(files):
                queue = tf.train.string_input_producer(files)
                reader = tf.TFRecordReader()
                _, record = reader.read(queue)
                image = tf.decode_raw(record, tf.uint8)
                image = tf.image.per_image_whitening(tf.reshape(image, [8, 8, 1]))
                return tf.train.batch([image], batch_size=8)
            """),
            after=example_source("""
            import tensorflow as tf

            def inputs(files):
                def parse_record(record):
                    image = tf.decode_raw(record, tf.uint8)
                    image = tf.image.per_image_whitening(tf.reshape(image, [8, 8, 1]))
                    return image

                dataset = tf.data.Dataset.from_tensor_slices(files)
                dataset = dataset.shuffle(tf.size(files, out_type=tf.int64))
                dataset = dataset.flat_map(tf.data.TFRecordDataset)
                dataset = dataset.map(parse_record)
                dataset = dataset.repeat()
                dataset = dataset.apply(tf.contrib.data.batch_and_drop_remainder(8))
                dataset = dataset.prefetch(1)
                return dataset.make_one_shot_iterator().get_next()
            """),
        ),
    )
