"""Call a function that runs its own session (a consumer: an eval loop, a dump) and keep what it returns.

usage: call_function.py MODULE_PATH FUNCTION ARGS_JSON OUT_JSON
The function is called with the keyword arguments of ARGS_JSON; what it returns must be JSON-able.
"""
import json
import sys

from run_pipeline import load, tf  # tf.compat.v1 in graph mode under TF 2


def main(path, function, args_json, out_path):
    tf.set_random_seed(1)
    returned = getattr(load(path), function)(**json.loads(args_json))
    with open(out_path, "w") as handle:
        json.dump(returned, handle)


if __name__ == "__main__":
    main(*sys.argv[1:5])
