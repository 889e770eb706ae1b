"""Benchmark: is a whole run linear in the number of files, on trees of multi-GPU tower modules?

usage: python bench/link_bench.py [--sizes 10,100,1000] [--jobs 1] [--tree-files 2000]
                                  [--all-legacy-files 200] [--tf2-python PATH] [--skip-trees] [--link-only]

Generates legacy training modules (~260 lines each: a reader helper, a batching helper, an input
function that feeds `shuffle_batch`, a model, and a tower loop that wraps the input in slim's
`prefetch_queue` and dequeues it per GPU). Every fourth module's towers take their input from
the previous module through an imported wrapper, so linking crosses files. Measures, in one run:
- `qmigrate --check` on 10, 100 and 1,000 such modules: seconds per file must stay flat;
- a 2,000-file tree of ordinary code with 5 % such modules, and a tree where every file is one,
  against TensorFlow 2.21's `tf_upgrade_v2` on the same trees (when a TF 2 python is found);
and the peak resident memory of the largest process of each run (wall and CPU seconds: CPU
seconds hold on a machine others share; each row notes the load average when it ended, and its
CPU ms per file over the first row's: the issue asks for 0.75-1.25, and < 300 MB). The run's
fixed cost (a run over an empty package: interpreter, imports) is measured too, and each row also
gives its CPU per file net of it: at 10 files that cost is a tenth of a second per file.
`--link-only` times the link step alone on summaries of 10 to 1,000 modules. Prints JSON.
"""
import argparse
import compileall
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tree_bench import FILLER, ORDINARY, tf2_python  # noqa: E402  (a sibling script)

import qmigrate  # noqa: E402  (only to find the package the runs below import)

MODULE = '''"""Training module {n}: legacy TF 1.x queue input and multi-GPU towers (generated for timing)."""
from __future__ import division
from __future__ import print_function

import os
import re
import time

import numpy as np
import tensorflow as tf
import tensorflow.contrib.slim as slim
{peer_import}
FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_integer('gpus_{n}', {gpus}, """How many towers to build.""")
tf.app.flags.DEFINE_integer('per_tower_{n}', {batch}, """Examples per tower and step.""")
tf.app.flags.DEFINE_string('records_{n}', '/tmp/records_{n}', """Where the binary records are.""")
SIDE = {side}
CLASSES = {classes}
TOWER = 'tower'


def load_example_{n}(file_queue):
  """Reads one fixed-size record from the queue of file names."""
  class Example(object):
    pass
  example = Example()
  example.label_size = 1
  example.side = SIDE
  example.channels = 3
  pixel_count = example.side * example.side * example.channels
  total = example.label_size + pixel_count
  reader = tf.FixedLengthRecordReader(record_bytes=total)
  example.key, raw = reader.read(file_queue)
  data = tf.decode_raw(raw, tf.uint8)
  example.label = tf.cast(tf.strided_slice(data, [0], [example.label_size]), tf.int32)
  planes = tf.reshape(tf.strided_slice(data, [example.label_size], [total]),
                      [example.channels, example.side, example.side])
  example.pixels = tf.transpose(planes, [1, 2, 0])
  return example


def batch_examples_{n}(image, label, queue_floor, batch_size, shuffle):
  """Batches one example at a time into training batches."""
  threads = {threads}
  if shuffle:
    images, labels = tf.train.shuffle_batch(
        [image, label], batch_size=batch_size, num_threads=threads,
        capacity=queue_floor + {spare} * batch_size, min_after_dequeue=queue_floor)
  else:
    images, labels = tf.train.batch(
        [image, label], batch_size=batch_size, num_threads=threads,
        capacity=queue_floor + {spare} * batch_size)
  tf.summary.image('batch_{n}', images)
  return images, tf.reshape(labels, [batch_size])


def training_inputs_{n}(data_dir, batch_size):
  """Distorted training batches read with the queue API."""
  names = [os.path.join(data_dir, 'part_%d.bin' % k) for k in range(1, {parts})]
  for name in names:
    if not tf.gfile.Exists(name):
      raise ValueError('missing input file: ' + name)
  file_queue = tf.train.string_input_producer(names)
  with tf.name_scope('augment_{n}'):
    example = load_example_{n}(file_queue)
    image = tf.cast(example.pixels, tf.float32)
    image = tf.random_crop(image, [SIDE, SIDE, 3])
    image = tf.image.random_flip_left_right(image)
    image = tf.image.random_brightness(image, max_delta={delta})
    image = tf.image.per_image_standardization(image)
    image.set_shape([SIDE, SIDE, 3])
    example.label.set_shape([1])
    queue_floor = int({epoch} * 0.4)
  return batch_examples_{n}(image, example.label, queue_floor, batch_size, shuffle=True)
{wrapper}

def weights_{n}(name, shape, stddev, decay):
  variable = tf.get_variable(name, shape, initializer=tf.truncated_normal_initializer(stddev=stddev))
  if decay is not None:
    tf.add_to_collection('losses', tf.multiply(tf.nn.l2_loss(variable), decay, name='decay'))
  return variable


def model_{n}(images):
  """A small convolutional model."""
  with tf.variable_scope('conv1') as scope:
    kernel = weights_{n}('weights', [5, 5, 3, {width}], 5e-2, None)
    conv = tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding='SAME')
    biases = tf.get_variable('biases', [{width}], initializer=tf.constant_initializer(0.0))
    conv1 = tf.nn.relu(tf.nn.bias_add(conv, biases), name=scope.name)
  pool1 = tf.nn.max_pool(conv1, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding='SAME')
  with tf.variable_scope('conv2') as scope:
    kernel = weights_{n}('weights', [5, 5, {width}, {width}], 5e-2, None)
    conv = tf.nn.conv2d(pool1, kernel, [1, 1, 1, 1], padding='SAME')
    biases = tf.get_variable('biases', [{width}], initializer=tf.constant_initializer(0.1))
    conv2 = tf.nn.relu(tf.nn.bias_add(conv, biases), name=scope.name)
  pool2 = tf.nn.max_pool(conv2, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding='SAME')
  with tf.variable_scope('dense') as scope:
    flat = tf.reshape(pool2, [images.get_shape().as_list()[0], -1])
    size = flat.get_shape()[1].value
    matrix = weights_{n}('weights', [size, {hidden}], 0.04, 0.004)
    biases = tf.get_variable('biases', [{hidden}], initializer=tf.constant_initializer(0.1))
    dense = tf.nn.relu(tf.matmul(flat, matrix) + biases, name=scope.name)
  with tf.variable_scope('logits') as scope:
    matrix = weights_{n}('weights', [{hidden}, CLASSES], 1.0 / {hidden}, None)
    biases = tf.get_variable('biases', [CLASSES], initializer=tf.constant_initializer(0.0))
    logits = tf.add(tf.matmul(dense, matrix), biases, name=scope.name)
  return logits


def loss_{n}(logits, labels):
  labels = tf.cast(labels, tf.int64)
  per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
  tf.add_to_collection('losses', tf.reduce_mean(per_example, name='cross_entropy'))
  return tf.add_n(tf.get_collection('losses'), name='total_loss')


def tower_loss_{n}(scope, images, labels):
  _ = loss_{n}(model_{n}(images), labels)
  losses = tf.get_collection('losses', scope)
  total = tf.add_n(losses, name='total_loss')
  for value in losses + [total]:
    tf.summary.scalar(re.sub('%s_[0-9]*/' % TOWER, '', value.op.name), value)
  return total


def mean_gradients_{n}(tower_gradients):
  means = []
  for pairs in zip(*tower_gradients):
    stacked = tf.concat(axis=0, values=[tf.expand_dims(g, 0) for g, _ in pairs])
    means.append((tf.reduce_mean(stacked, 0), pairs[0][1]))
  return means


def train_{n}():
  """Trains on several towers, each dequeuing its own batches."""
  with tf.Graph().as_default(), tf.device('/cpu:0'):
    step = tf.get_variable('global_step', [], initializer=tf.constant_initializer(0), trainable=False)
    rate = tf.train.exponential_decay({rate}, step, {decay_steps}, 0.1, staircase=True)
    optimizer = tf.train.GradientDescentOptimizer(rate)
    images, labels = {input_call}(FLAGS.records_{n}, FLAGS.per_tower_{n})
    batches = slim.prefetch_queue.prefetch_queue([images, labels], capacity=2 * FLAGS.gpus_{n})
    gradients = []
    with tf.variable_scope(tf.get_variable_scope()):
      for i in range(FLAGS.gpus_{n}):
        with tf.device('/gpu:%d' % i):
          with tf.name_scope('%s_%d' % (TOWER, i)) as scope:
            image_batch, label_batch = batches.dequeue()
            loss = tower_loss_{n}(scope, image_batch, label_batch)
            tf.get_variable_scope().reuse_variables()
            gradients.append(optimizer.compute_gradients(loss))
    train_op = optimizer.apply_gradients(mean_gradients_{n}(gradients), global_step=step)
    saver = tf.train.Saver(tf.global_variables())
    session = tf.Session(config=tf.ConfigProto(allow_soft_placement=True))
    session.run(tf.global_variables_initializer())
    tf.train.start_queue_runners(sess=session)
    for number in range({steps}):
      started = time.time()
      _, loss_value = session.run([train_op, loss])
      assert not np.isnan(loss_value), 'diverged'
      if number % 10 == 0:
        print('step %d, loss %.3f, %.3f s' % (number, loss_value, time.time() - started))
      if number % 1000 == 0:
        saver.save(session, os.path.join('/tmp/train_{n}', 'model.ckpt'), global_step=number)
'''

# Every fourth module reads the previous module's input through a wrapper: a link across files.
WRAPPER = '''

def peer_inputs_{n}(data_dir, batch_size):
  """The input of module {peer}, used by this module's towers."""
  return peer.training_inputs_{peer}(data_dir, batch_size)
'''

UTILITY = '''

def schedule_{n}_{k}(base={rate}, boundaries=({b1}, {b2})):
  """Plain-Python helper with no TensorFlow queue in it."""
  table = []
  for index, boundary in enumerate(boundaries):
    table.append((boundary, base * (0.1 ** index)))
  return dict(table)
'''

TARGET_LINES = 260


def package_of(index):
    return "pkg%02d" % (index // 100)


def tower_module(index, rng):
    """The text of generated module `index` (~260 lines)."""
    linked = index % 4 == 3
    peer = index - 1
    values = dict(
        n=index, gpus=rng.choice([2, 4, 8]), batch=rng.choice([32, 64, 128]), side=rng.choice([24, 32]),
        classes=rng.choice([10, 100]), threads=rng.choice([4, 8, 16]), spare=rng.choice([2, 3]),
        parts=rng.choice([4, 6]), delta=rng.choice([32, 63]), epoch=rng.choice([50000, 60000]),
        width=rng.choice([32, 64]), hidden=rng.choice([192, 384]), rate=rng.choice([0.1, 0.05]),
        decay_steps=rng.choice([1000, 5000]), steps=rng.choice([10000, 100000]),
        peer_import="from %s import mod_%04d as peer\n" % (package_of(peer), peer) if linked else "",
        wrapper=WRAPPER.format(n=index, peer=peer) if linked else "",
        input_call=("peer_inputs_%d" if linked else "training_inputs_%d") % index,
    )
    text = MODULE.format(**values)
    k = 0
    while text.count("\n") < TARGET_LINES:
        text += UTILITY.format(n=index, k=k, rate=values["rate"], b1=rng.randint(1, 9) * 1000,
                               b2=rng.randint(10, 40) * 1000)
        k += 1
    return text


def ordinary_module(index, lines=260):
    text = ORDINARY.format(index=index)
    n = 0
    while text.count("\n") < lines:
        text += FILLER.format(index=index, n=n)
        n += 1
    return text


def make_tree(folder, files, legacy_percent):
    """`files` modules in packages of 100; `legacy_percent` of them tower modules (spread evenly)."""
    rng = random.Random(files)
    every = 100.0 / legacy_percent if legacy_percent else None
    legacy = 0
    for index in range(files):
        package = os.path.join(folder, package_of(index))
        if not os.path.isdir(package):
            os.makedirs(package)
            open(os.path.join(package, "__init__.py"), "w").close()
        is_legacy = every is not None and int(index / every) != int((index + 1) / every)
        # In a mixed tree a linked module's peer is ordinary code: it then links to nothing, which
        # is reported. Only all-legacy trees hold links that succeed.
        text = tower_module(index, rng) if is_legacy else ordinary_module(index)
        legacy += is_legacy
        with open(os.path.join(package, "mod_%04d.py" % index), "w") as handle:
            handle.write(text)
    return legacy


_MEASURE = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
            "stderr=subprocess.DEVNULL); usage = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "print(usage.ru_utime + usage.ru_stime, usage.ru_maxrss)")


def measure(command):
    """(wall seconds, CPU seconds of all its processes, peak resident MB of the largest one).

    CPU seconds are what a run costs even on a machine others share; wall seconds what it takes.
    """
    start = time.time()
    out = subprocess.run([sys.executable, "-c", _MEASURE] + command, stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    wall = time.time() - start
    cpu, peak = out.split()
    return wall, float(cpu), int(peak) / 1024.0


def run_qmigrate(folder, jobs):
    return measure([sys.executable, "-m", "qmigrate", folder, "--check", "-j", str(jobs)])


def run_tf_upgrade(tf2, folder):
    out = folder + "_upgraded"
    measured = measure([tf2, "-m", "tensorflow.tools.compatibility.tf_upgrade_v2_main", "--intree", folder,
                        "--outtree", out, "--reportfile", out + ".txt"])
    shutil.rmtree(out, ignore_errors=True)
    return measured


def count_py(folder):
    return sum(1 for _, _, names in os.walk(folder) for name in names if name.endswith(".py"))


def link_step(sizes):
    """Seconds per file of the link step alone (in this process, on summaries), per tree size.

    The summaries are those the workers would make (the stdlib parse of each module), with the
    pipeline count and tower consumer the first pass finds in these modules filled in.
    """
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from qmigrate import api
    from qmigrate.engine import Options
    from qmigrate.linking import Linker
    from qmigrate.summary import ConsumerSummary, summarise
    from qmigrate.names import ImportMap
    import ast

    rows = []
    for size in sizes:
        rng = random.Random(size)
        paths, summaries = [], {}
        for index in range(size):
            path = os.path.join("tree", package_of(index), "mod_%04d.py" % index)
            source = tower_module(index, rng).encode()
            tree = ast.parse(source)
            callee = ("peer_inputs_%d" if index % 4 == 3 else "training_inputs_%d") % index
            summaries[path] = summarise(path, source, tree, ImportMap(tree=tree), {"training_inputs_%d" % index: 1},
                                        [ConsumerSummary(0, "train_%d" % index, callee, "prefetch", True)])
            paths.append(path)
        consumers = [(path, summary.consumers) for path, summary in summaries.items()]
        started = time.process_time()
        plans = api._plans(Linker(paths, summaries), consumers, Options())
        seconds = time.process_time() - started
        linked = sum(1 for plan in plans.values() if plan.consumers)
        rows.append({"files": size, "link_cpu_ms_per_file": round(1000 * seconds / size, 3),
                     "tower_loops_linked": linked})
        print(json.dumps(rows[-1]), file=sys.stderr)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--tree-files", type=int, default=2000)
    parser.add_argument("--all-legacy-files", type=int, default=200)
    parser.add_argument("--tf2-python")
    parser.add_argument("--skip-trees", action="store_true", help="only the scaling runs")
    parser.add_argument("--trees", default="ordinary_5_percent_legacy,all_legacy", help="which trees to measure")
    parser.add_argument("--link-only", action="store_true",
                        help="only the link step, in this process, on summaries of 10 to 1,000 modules")
    options = parser.parse_args()
    if options.link_only:
        print(json.dumps({"link_step": link_step([10, 100, 1000])}, indent=2))
        return
    tf2 = tf2_python(options.tf2_python)
    # Both tools start from byte-compiled modules, as installed: pip compiled tf_upgrade_v2's at
    # install, while an editable install of qmigrate under PYTHONDONTWRITEBYTECODE (set on some
    # machines, this one among them) would compile its sources at every start (0.16 s a run).
    compileall.compile_dir(os.path.dirname(os.path.abspath(qmigrate.__file__)), quiet=1)
    work = tempfile.mkdtemp(prefix="qmigrate-link-")
    report = {"machine": "%d cores" % os.cpu_count(), "jobs": options.jobs, "scaling": []}
    try:
        # The run's fixed cost (interpreter, imports, the pool): a run over one empty package, taken
        # off each row's CPU for its cost per file net of it, which is what must stay flat.
        empty = os.path.join(work, "empty")
        os.makedirs(os.path.join(empty, "pkg00"))
        open(os.path.join(empty, "pkg00", "__init__.py"), "w").close()
        fixed = min(run_qmigrate(empty, options.jobs)[1] for _ in range(3))
        report["fixed_cpu_ms"] = round(1000 * fixed, 1)
        for size in [int(s) for s in options.sizes.split(",") if s]:
            folder = os.path.join(work, "towers_%d" % size)
            make_tree(folder, size, 100)
            seconds, cpu, peak = run_qmigrate(folder, options.jobs)
            row = {"files": size, "seconds": round(seconds, 2), "ms_per_file": round(1000 * seconds / size, 1),
                   "cpu_ms_per_file": round(1000 * cpu / size, 1),
                   "net_cpu_ms_per_file": round(1000 * (cpu - fixed) / size, 1),
                   "peak_mb_per_process": round(peak, 1), "load_average": round(os.getloadavg()[0], 1)}
            if report["scaling"]:  # the issue asks for a flat per-file cost: this run's over the first's
                for key in ("cpu_ms_per_file", "net_cpu_ms_per_file"):
                    first = report["scaling"][0][key]
                    row[key.replace("_ms_per_file", "_per_file_over_first")] = round(row[key] / first, 2)
            report["scaling"].append(row)
            print(json.dumps(report["scaling"][-1]), file=sys.stderr)
            shutil.rmtree(folder)
        for key in ("ms_per_file", "cpu_ms_per_file", "net_cpu_ms_per_file"):
            per_file = [row[key] for row in report["scaling"]]
            if per_file:
                report["spread_" + key] = round(max(per_file) / min(per_file), 2)
        if not options.skip_trees:
            for name, files, percent in (("ordinary_5_percent_legacy", options.tree_files, 5),
                                         ("all_legacy", options.all_legacy_files, 100)):
                if name not in options.trees.split(","):
                    continue
                folder = os.path.join(work, name)
                legacy = make_tree(folder, files, percent)
                files = count_py(folder)  # the packages' __init__.py count as files too
                row = {"files": files, "legacy_files": legacy}
                for jobs in (1, 2):
                    seconds, cpu, peak = run_qmigrate(folder, jobs)
                    row["qmigrate_j%d" % jobs] = {"files_per_second": round(files / seconds, 1),
                                                  "files_per_cpu_second": round(files / cpu, 1),
                                                  "peak_mb_per_process": round(peak, 1)}
                if tf2:
                    seconds, cpu, peak = run_tf_upgrade(tf2, folder)
                    row["tf_upgrade_v2"] = {"files_per_second": round(files / seconds, 1),
                                            "files_per_cpu_second": round(files / cpu, 1), "peak_mb": round(peak, 1)}
                    for key in ("files_per_second", "files_per_cpu_second"):
                        row["qmigrate_j2_over_tf_upgrade_v2_" + key] = round(
                            row["qmigrate_j2"][key] / row["tf_upgrade_v2"][key], 2)
                report[name] = row
                print(json.dumps({name: row}), file=sys.stderr)
                shutil.rmtree(folder)
        print(json.dumps(report, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
