"""Queues that carry something other than input records: each stays, with the reason."""
import tensorflow as tf


def learner_inputs(make_rollout, num_workers, batch_size, dtypes, shapes):
    # Rollout workers fill one queue that every process finds by its name; the learner drains it.
    with tf.device('/job:learner/cpu:0'):
        rollouts = tf.FIFOQueue(4, dtypes, shapes, shared_name='rollouts')
    puts = []
    for worker in range(num_workers):
        with tf.device('/job:worker/task:%d' % worker):
            trajectory = make_rollout(worker)
            puts.append(rollouts.enqueue(trajectory))
    tf.train.add_queue_runner(tf.train.QueueRunner(rollouts, puts))
    return rollouts.dequeue_many(batch_size)


def step_barrier(num_workers, task, after):
    # Each worker signals every other one, then waits for a token from each.
    gates = [tf.FIFOQueue(num_workers, [tf.bool], shapes=[[]], shared_name='gate_%d' % i)
             for i in range(num_workers)]
    signal = tf.constant(True)
    ops = []
    with tf.control_dependencies(after):
        for i, gate in enumerate(gates):
            if i != task:
                ops.append(gate.enqueue(signal))
    ops.append(gates[task].dequeue_many(num_workers - 1))
    return tf.group(*ops)


def delayed(x, delay, batch, width):
    # A delay line: primed with zeros, one value in and one out per step the caller runs.
    line = tf.FIFOQueue(delay, dtypes=tf.float32, shapes=(batch, width))
    prime = line.enqueue_many(tf.zeros((delay, batch, width)))
    previous = line.dequeue()
    push = line.enqueue(x)
    return previous, prime, push


class _Pool(object):
    """An object of this module that computes in batches with an op of its own."""

    def __init__(self, size):
        self.size = size

    def results(self, values):
        return tf.identity(values)


def pooled(values, size):
    pools = [None]
    pools[0] = _Pool(size)
    done = pools[0].results(values)
    tf.train.add_queue_runner(tf.train.QueueRunner(pools[0], [done]))
    return done


def delay_lines(x, delays, width):
    """One delay line per layer; the callers run the primes once and the pushes each step."""
    primes, pushes = [], []
    for delay in delays:
        line = tf.FIFOQueue(delay, dtypes=tf.float32, shapes=(1, width))
        prime = line.enqueue_many(tf.zeros((delay, 1, width)))
        previous = line.dequeue()
        push = line.enqueue([x])
        primes.append(prime)
        pushes.append(push)
        x = x + previous
    return x, primes, pushes


class FastGenerator(object):
    def build(self, x, width):
        prime_ops, push_ops = [], []
        state = tf.FIFOQueue(1, dtypes=tf.float32, shapes=(1, width))
        prime = state.enqueue_many(tf.zeros((1, 1, width)))
        previous = state.dequeue()
        push = state.enqueue([x])
        prime_ops.append(prime)
        push_ops.append(push)
        self.prime_ops = prime_ops
        self.push_ops = push_ops
        return x + previous


class StepGenerator(object):
    """Fed one sample a step: the queue delays it by `rate` steps (a fast-generation buffer)."""

    def __init__(self, sess, rate, width):
        self.sess = sess
        self.sample = tf.placeholder(tf.float32, [1, width])
        delay = tf.FIFOQueue(rate, dtypes=tf.float32, shapes=(1, width))
        prime = delay.enqueue_many(tf.zeros((rate, 1, width)))
        previous = delay.dequeue()
        output = self.sample + previous
        push = delay.enqueue([self.sample])
        self.step_ops = [output, push]
        self.sess.run(prime)

    def step(self, value):
        return self.sess.run(self.step_ops, feed_dict={self.sample: value})[0]
