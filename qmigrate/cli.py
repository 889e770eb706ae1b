"""The command line: options in, `api.migrate` called, `render` prints. No libcst here."""
import contextlib
import os
import signal
import sys

import click

from qmigrate import api, config, output_tree, render
from qmigrate.diagnostics import Status
from qmigrate.engine import Options
from qmigrate.targets import DEFAULT_TARGET, TARGETS

EXIT_CLEAN, EXIT_FOUND, EXIT_ERROR = 0, 1, 2


@contextlib.contextmanager
def _progress():
    """A progress count on stderr when it is a terminal (not when piped, nor in CI)."""
    if not sys.stderr.isatty() or os.environ.get("CI"):
        yield None
        return
    done = [0]

    def step(count):
        done[0] += count
        sys.stderr.write("\rqmigrate: %d files analysed" % done[0])
        sys.stderr.flush()

    try:
        yield step
    finally:
        if done[0]:
            sys.stderr.write("\r\033[K")


def _settings(config_path, paths) -> dict:
    path = config_path or config.find(paths[0])
    if not path:
        return {}
    try:
        settings = config.load(path)
    except config.ConfigError as error:
        raise click.UsageError(str(error))
    for key, allowed in (("target-tf", TARGETS), ("tower-strategy", ("shard", "shared-iterator"))):
        if key in settings and settings[key] not in allowed:
            raise click.UsageError("%s: [tool.qmigrate] %s must be one of %s" % (path, key, ", ".join(allowed)))
    return settings


def _pick(given, option: str, configured):
    """The command line's value when it was given, else the configuration's, else the default."""
    if _given(option.lstrip("-").replace("-", "_")) or configured is None:
        return given
    return configured


def _codes(text) -> tuple:
    return tuple(code.strip().upper() for code in (text or "").split(",") if code.strip())


def _write_command(options: Options, target_tf: str) -> str:
    """The command that applies what this run would rewrite (configuration files apply by themselves)."""
    command = "qmigrate --write"
    if options.unsafe:
        command += " --unsafe"
    if _given("target_tf") and target_tf != DEFAULT_TARGET:
        command += " --target-tf " + target_tf
    return command


def _given(parameter: str) -> bool:
    """Whether the command line gave this parameter (rather than its default)."""
    return click.get_current_context().get_parameter_source(parameter) is click.core.ParameterSource.COMMANDLINE


def _terminate(signum, frame):
    raise SystemExit(128 + signum)


class _Main(click.Command):
    """The migration command; `qmigrate verify ...` goes to the verify command instead."""

    def main(self, args=None, prog_name=None, **extra):
        args = list(sys.argv[1:] if args is None else args)
        if args[:1] == ["verify"]:
            return verify_command.main(args[1:], prog_name="%s verify" % (prog_name or "qmigrate"), **extra)
        return super().main(args, prog_name, **extra)


@click.command(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--check", "mode", flag_value="check", default=True,
              help="Report findings as path:line:col: CODE message; write nothing (default).")
@click.option("--diff", "mode", flag_value="diff", help="Print a unified diff of the migration; write nothing.")
@click.option("--write", "mode", flag_value="write",
              help="Rewrite files in place, atomically, only when the new source parses.")
@click.option("--output-dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write a migrated copy of PATHS to DIR (other files copied, links kept); PATHS stay untouched.")
@click.option("--target-tf", "target_tf", type=click.Choice(sorted(TARGETS)), default=DEFAULT_TARGET,
              show_default=True,
              help="TensorFlow version the emitted code must run on.")
@click.option("--output-format", type=click.Choice(["text", "json", "github", "sarif", "markdown"]), default="text",
              show_default=True,
              help="text: path:line:col: CODE message; json; github: Actions annotations; sarif: SARIF 2.1.0 for "
                   "code scanning; markdown: a summary for a pull-request comment.")
@click.option("--unsafe", is_flag=True,
              help="Also apply unsafe fixes (valid code whose behaviour differs, e.g. sharding the batch that "
                   "every tower shared).")
@click.option("--tower-strategy", type=click.Choice(["shard", "shared-iterator"]), default="shard",
              show_default=True,
              help="How the towers of a multi-GPU loop share a migrated pipeline: an iterator per tower on its own "
                   "shard, or one iterator that every tower takes batches from (like the prefetch queue).")
@click.option("--seed", type=int, default=None,
              help="Seed of the file order that the towers' shards share, where the producer had none. "
                   "Default: one drawn per process, which partitions each epoch among the towers of that "
                   "process only; give one when several processes read shards of the same files.")
@click.option("--include", multiple=True, metavar="GLOB",
              help="Only files whose path or name matches (repeatable; files named on the command line always).")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip files whose path or name matches (repeatable).")
@click.option("--select", metavar="CODES", help="Only these rules (comma-separated codes or prefixes, e.g. QM3).")
@click.option("--ignore", metavar="CODES",
              help="Never these rules: their findings are not reported and their pipelines not rewritten.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, exists=True),
              help="A pyproject.toml to read [tool.qmigrate] from (default: the nearest one above the first PATH).")
@click.option("-j", "--jobs", type=click.IntRange(1), default=None,
              help="Processes to analyse files in (default: all cores).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when queue code is found (errors still exit 2).")
@click.option("--color/--no-color", default=None, help="Colour the diff (default: when stdout is a terminal).")
@click.option("--debug", is_flag=True, help="Print the traceback of an internal error (to put in a bug report).")
@click.option("--list-rules", is_flag=True, help="List every rule: code, name, safety, summary.")
@click.option("--explain", metavar="CODE", help="Show a rule's documentation.")
def main(paths, mode, output_dir, target_tf, output_format, unsafe, tower_strategy, seed, include, exclude, select,
         ignore, config_path, jobs, exit_zero, color, debug, list_rules, explain):
    """Rewrite TensorFlow 1.x queue-based input pipelines into tf.data.

    PATHS are files or directories (searched for *.py and *.ipynb, skipping what git ignores).
    Exit status: 0 nothing to migrate;
    1 queue code found (--check/--diff) or left behind (--write); 2 a file could not be read,
    parsed or written (the others are still processed).

    `qmigrate verify FILE.py:FUNCTION ...` runs a legacy input function and its migration under
    TensorFlow and compares them (see `qmigrate verify --help`). A folder named verify: ./verify.
    """
    from qmigrate import rules_doc

    if list_rules:
        click.echo(rules_doc.rule_table())
        return
    if explain:
        text = rules_doc.explain(explain)
        if text is None:
            raise click.BadParameter("no rule has code %s" % explain, param_hint="--explain")
        click.echo(text)
        return
    if not paths:
        raise click.UsageError("give at least one file or directory")

    if mode == "write":
        # A terminated run must still clean up the file it was writing: turn SIGTERM into an exception.
        signal.signal(signal.SIGTERM, _terminate)
    settings = _settings(config_path, paths)
    options = Options(
        target=TARGETS[_pick(target_tf, "--target-tf", settings.get("target-tf"))],
        unsafe=unsafe or settings.get("unsafe", False),
        tower_strategy=_pick(tower_strategy, "--tower-strategy", settings.get("tower-strategy")),
        seed=_pick(seed, "--seed", settings.get("seed")),
        select=_codes(select) or tuple(settings.get("select", ())),
        ignore=_codes(ignore) or tuple(settings.get("ignore", ())))
    include = include or tuple(settings.get("include", ()))
    exclude = exclude or tuple(settings.get("exclude", ()))
    if output_dir:
        try:
            output_tree.destinations(paths, output_dir)
        except output_tree.OutputDirError as error:
            raise click.BadParameter(str(error), param_hint="--output-dir")
        mode = "write" if mode == "check" else mode
    jobs = jobs or os.cpu_count() or 1
    with _progress() as progress:
        results = api.migrate(paths, options, write=(mode == "write" and not output_dir), include=include,
                              exclude=exclude, jobs=jobs, progress=progress)
    copy_problems = output_tree.write_tree(paths, output_dir, results) if output_dir else []
    show_fixed = mode != "write"  # after a write, what was fixed is gone; before, it is what fails the check
    command = _write_command(options, target_tf)
    if output_format == "json":
        click.echo(render.as_json(results))
    elif output_format == "sarif":
        click.echo(render.sarif(results, show_fixed, command))
    elif output_format == "github":
        click.echo(render.github(results, show_fixed, command))
    elif output_format == "markdown":
        click.echo(render.markdown(results, wrote=(mode == "write"), show_fixed=show_fixed, write_command=command))
    else:
        if mode == "diff":
            use_color = sys.stdout.isatty() if color is None else color
            for result in results:
                text = render.diff(result, use_color)
                if text:
                    click.echo(text, nl=False, color=use_color)
        listing = render.findings(results, show_fixed=show_fixed)
        if listing:
            click.echo(listing, err=(mode == "diff"))
        click.echo(render.summary(results, wrote=(mode == "write")), err=True)
    if debug:
        for result in results:
            if result.traceback:
                click.echo("%s: internal error in qmigrate:\n%s" % (result.path, result.traceback.rstrip()), err=True)

    for problem in copy_problems:
        click.echo(problem, err=True)
    if copy_problems or any(r.status is Status.FAILED for r in results):
        sys.exit(EXIT_ERROR)
    found = any(r.remaining for r in results) or (mode != "write" and any(r.changed for r in results))
    sys.exit(EXIT_FOUND if found and not exit_zero else EXIT_CLEAN)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("target", metavar="FILE.py:FUNCTION")
@click.option("--args", "args", default="", metavar="KWARGS",
              help="Keyword arguments for the function, as Python: \"data_dir='/data', batch_size=128\".")
@click.option("--python", type=click.Path(exists=True, dir_okay=False), metavar="PYTHON",
              help="Interpreter with TensorFlow to run both sides under (default: the first python on PATH "
                   "that imports tensorflow).")
@click.option("--batches", type=click.IntRange(1), default=100, show_default=True,
              help="Batches to drain from each side (with --towers, shared among the towers).")
@click.option("--towers", type=click.IntRange(1), default=1, show_default=True,
              help="Towers: the migrated function is called once per tower (with num_shards, shard_index when "
                   "it takes them); their examples must be disjoint within an epoch and cover it.")
@click.option("--target-tf", "target_tf", type=click.Choice(sorted(TARGETS)), default=DEFAULT_TARGET,
              show_default=True, help="TensorFlow version to migrate for.")
@click.option("--against", type=click.Path(exists=True, dir_okay=False), metavar="MIGRATED.py",
              help="Compare with this already-migrated file instead of migrating in memory.")
@click.option("--keep-random", is_flag=True,
              help="Leave random augmentation as written: compare structure, shapes, counts and throughput only.")
@click.option("--timeout", type=click.FloatRange(1), default=600, show_default=True,
              help="Seconds each side may run.")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def verify_command(target, args, python, batches, towers, target_tf, against, keep_random, timeout, output_format):
    """Run FUNCTION of FILE.py as it is and as migrated, under TensorFlow, and compare what they give.

    THIS RUNS YOUR CODE: FILE.py (and what it imports) is imported and FUNCTION called with --args
    in two subprocesses of --python, one with the file as it is (queue runners started), one with
    its migration (computed in memory for the file's folder, written only to a temporary folder;
    or --against). Each drains --batches batches. Compared: structure, dtypes, static and batch
    shapes, the examples (a hash of each example's row: missing, extra, repeated), whether the order
    is shuffled in both, with --towers that the towers split each epoch, and throughput.

    Random augmentation (tf.random_crop, tf.image.random_*, tf.random_uniform/normal, ...) is made
    deterministic in both processes, with a warning naming what was patched; --keep-random keeps it.
    Writes none of your files.

    Exit status: 0 equivalent; 1 differences; 2 a side could not be built or run.
    """
    from qmigrate import verify

    try:
        path, function = verify.parse_target(target)
    except verify.VerifyError as error:
        raise click.BadParameter(str(error), param_hint="FILE.py:FUNCTION")
    request = verify.Request(path=path, function=function, args=args, python=python, batches=batches,
                             towers=towers, target_tf=target_tf, against=against, keep_random=keep_random,
                             timeout=timeout)
    sys.exit(verify.main_entry(request, output_format))
