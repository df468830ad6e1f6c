"""``envpool-bench``: the arguments, then plan -> run -> report.

See the package docstring (``envpool.bench``) for the method and the JSON schema.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import textwrap
from typing import NoReturn

from envpool.bench import engines, machine
from envpool.bench.errors import UsageError


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


class NumbersThenTasks(argparse.Action):
    """``-n 8 64 CartPole-v1``: a number list ends at its first value that is not an integer.

    argparse hands an ``nargs="+"`` option every value up to the next flag; the
    values after the numbers are task ids, appended to ``tasks`` (as if typed
    before the flag). The first value must be an integer.
    """

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        numbers = list(itertools.takewhile(_is_int, values))
        if not numbers:
            parser.error(f"argument {option_string}: invalid int value: {values[0]!r}")
        setattr(namespace, self.dest, [int(v) for v in numbers])
        namespace.tasks = [*namespace.tasks, *values[len(numbers) :]]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit code 2
        raise UsageError(message)


def _engine_help() -> str:
    lines = ["engines (-e):"]
    for name, e in engines.registry().items():
        shown = f"{name}PATH" if e.parametric else name
        lines.append(f"  {shown:<17}{'*' if e.default else ' '} {e.summary}")
    lines.append("  (* = in the default run)")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="envpool-bench",
        description=textwrap.fill(
            "Throughput of EnvPool against gymnasium's vector envs, ale-py's vector env, the raw C++ "
            "ceiling and other interpreters' envpool. With no arguments: a short default comparison "
            "(CartPole-v1, plus Pong-v5 and HalfCheetah-v4 when Atari and MuJoCo are built).",
            width=79,
        ),
        epilog=_engine_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "tasks",
        nargs="*",
        action="extend",
        default=[],
        metavar="TASK",
        help="task ids (default: CartPole-v1, Pong-v5, HalfCheetah-v4, those built), or gymnasium:ID[,KEY=VALUE...] "
        "for an id of gymnasium's registry (keywords to gymnasium.make; envpool-bench/Busy-v0 and "
        "envpool-bench/PongPreprocessed-v0 are envpool.bench.gym_envs')",
    )
    p.add_argument(
        "-n",
        "--num-envs",
        nargs="+",
        action=NumbersThenTasks,
        metavar="N",
        help="num_envs values (default: 1 8 64); task ids may follow: -n 8 64 CartPole-v1",
    )
    p.add_argument(
        "-b",
        "--batch-size",
        nargs="+",
        action=NumbersThenTasks,
        metavar="B",
        help="batch sizes, one per --num-envs value or one for all (default: = num_envs, "
        "i.e. sync; batch_size < num_envs is async)",
    )
    p.add_argument(
        "-t",
        "--num-threads",
        nargs="+",
        action=NumbersThenTasks,
        metavar="T",
        default=None,
        help="num_threads values: threads stepping envs, each capped at num_envs; every case runs "
        f"with each (default: usable cores = {machine.usable_cores()}); task ids may follow",
    )
    p.add_argument(
        "--num-workers",
        type=int,
        default=None,
        metavar="W",
        help="worker processes of the engines that have them (envpool on gymnasium: tasks, raw-procs), "
        "capped at num_envs (default: each --num-threads value)",
    )
    p.add_argument(
        "-s",
        "--seconds",
        type=float,
        default=None,
        help="timed seconds per measurement (default 2; 0.5 in the default run)",
    )
    p.add_argument(
        "-w", "--warmup", type=float, default=None, help="untimed warm-up seconds (default 0.5; 0.2 in the default run)"
    )
    p.add_argument("-r", "--repeats", type=int, default=None, help="interleaved rounds (default 3)")
    p.add_argument(
        "-e",
        "--engines",
        nargs="+",
        metavar="ENGINE",
        help="engines (listed below), python:PATH, or 'all' (default: those marked *)",
    )
    p.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="PATH",
        help="also measure the envpool imported by this interpreter (repeatable)",
    )
    p.add_argument(
        "--baseline", default=None, help="engine the ratios are relative to (default: envpool, else the first engine)"
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a task option for every task, as envpool.make takes it (repeatable; the value is a Python "
        "literal, else a string): e.g. --option from_pixels=True on a MuJoCo task; engines that cannot "
        "take it are skipped, saying why",
    )
    p.add_argument("--json", metavar="PATH", help="write the results as JSON (schema in envpool.bench's docstring)")
    p.add_argument("--plot", metavar="PATH", help="write a PNG of steps/s against num_envs per engine")
    p.add_argument("--seed", type=int, default=0, help="base seed (round r uses seed + r)")
    p.add_argument("--no-progress", action="store_true", help="no progress on stderr")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        try:
            from envpool.bench import report
        except ImportError as e:  # rich: the bench extra
            raise UsageError(f"{e}: pip install 'envpool[bench]'") from None
        from envpool.bench import runner
        from envpool.bench.plan import make_plan

        args = build_parser().parse_args(argv)
        args.argv = argv
        if args.plot:  # fail before measuring, not after
            report.require_matplotlib()
        plan = make_plan(args)
        with report.Progress(runner.count(plan), enabled=not args.no_progress) as progress:
            result = runner.run(plan, on_step=progress.step, on_start=progress.start)
    except UsageError as e:
        print(f"envpool-bench: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("envpool-bench: interrupted", file=sys.stderr)
        return 130
    out = report.console()
    report.print_report(result, out)
    if args.json:
        report.write_json(result, args.json)
        out.print(f"wrote {args.json}", markup=False)
    if args.plot:
        report.plot(result, args.plot)
        out.print(f"wrote {args.plot}", markup=False)
    return 0
