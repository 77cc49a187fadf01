"""The ``bnfs`` command line: learn, blanket, select, posterior, score, compare, draw, example.

Every subcommand reads CSV, TSV, Parquet or ARFF, takes ``--target`` by name or column
index, and reports bad input as one line on stderr with exit code 2.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import sys
import warnings
from pathlib import Path

from bnfs.cli.parser import build_parser
from bnfs.tables._files import same_file

__all__ = [
    "main",
    "build_parser",
]

log = logging.getLogger("bnfs")


def _check_outputs(args) -> None:
    """Before any work: every output's folder exists, and no command writes over a file it
    reads (every argument typed ``reads`` in the parser), nor two outputs over each other."""
    inputs, outputs = [], []
    for name, kind in args.file_arguments:
        path = getattr(args, name, None)
        if isinstance(path, Path):
            (inputs if kind.reads else outputs).append((kind.label, path))
    for flag, out in list(outputs):  # bnfs learn writes a graph BIF cannot hold beside it
        if flag == "--out" and args.command == "learn" and out.suffix.lower() == ".bif":
            from bnfs.cli.learn import fallback_of

            outputs.append(("--out's JSON fallback", fallback_of(out)))
    for flag, out in outputs:
        if not out.parent.is_dir():
            raise ValueError(
                f"cannot write {flag} {str(out)!r}: folder {str(out.parent)!r} does not exist"
            )
    for k, (flag, out) in enumerate(outputs):
        for label, other in inputs + [(f"{f} file", p) for f, p in outputs[:k]]:
            if same_file(out, other):
                raise ValueError(
                    f"{flag} {str(out)!r} is also the {label}; it would be "
                    "overwritten: choose another path"
                )


@contextlib.contextmanager
def _showing_compiling():
    """Show the one line that kernels are compiling (first use only) on stderr; the line
    that moves while they do is :mod:`bnfs._progress`'s, as in Python."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("bnfs: %(message)s"))
    compiling = logging.getLogger("bnfs.compile")
    saved = compiling.level, compiling.propagate
    compiling.addHandler(handler)
    compiling.setLevel(logging.INFO)
    compiling.propagate = False  # shown once, with -v too
    try:
        yield
    finally:
        compiling.removeHandler(handler)
        compiling.setLevel(saved[0])
        compiling.propagate = saved[1]


def _printable_streams() -> None:
    """Output a stream cannot encode (a unicode column name under PYTHONIOENCODING=ascii,
    a Windows console) is escaped, not an error that loses the answer part way."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure") and getattr(stream, "errors", None) == "strict":
            stream.reconfigure(errors="backslashreplace")


def main(argv=None) -> int:
    """Run the ``bnfs`` command line on ``argv`` (default: ``sys.argv[1:]``); return the
    exit code. Ctrl-C at any point, the first seconds of importing numpy and pandas
    included, is one line and exit 130 (past the parsing, the command's own handler writes
    what it has first)."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("bnfs: interrupted", file=sys.stderr)
        return 130


def _main(argv=None) -> int:
    _printable_streams()
    parser = build_parser()
    args = parser.parse_args(argv)
    if hasattr(args, "default_algorithm"):
        args.algorithm_given = args.algorithm is not None
        args.algorithm = args.algorithm or args.default_algorithm
    handler = None
    if args.verbose:  # removed again at the end: main() may run many times in one process
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("bnfs: %(message)s"))
        level = log.level
        log.addHandler(handler)
        log.setLevel(logging.INFO)
    starting = _starting_line(args)
    from bnfs import _budget  # after parsing: bnfs --help loads no data library

    starting()

    partial = _budget.PARTIAL_ON_INTERRUPT
    _budget.PARTIAL_ON_INTERRUPT = True  # Ctrl-C: the graph so far, written, exit 130
    try:
        _check_outputs(args)
        with _showing_compiling(), warnings.catch_warnings():
            warnings.showwarning = functools.partial(_one_line_warning, args.command, set())
            return args.func(args)
    except TimeoutError as err:  # a budget spent before any answer: as a partial one
        parser.exit(124, f"bnfs {args.command}: {_first_line(err)}\n")
    except (ValueError, TypeError, OSError, ImportError, KeyError) as err:
        parser.exit(2, f"bnfs {args.command}: error: {_first_line(err)}\n")
    except KeyboardInterrupt:
        parser.exit(130, f"bnfs {args.command}: interrupted\n")
    except Exception as err:  # a bug of ours: one line, the traceback with -v
        if args.verbose:
            raise
        parser.exit(
            1,
            f"bnfs {args.command}: internal error ({type(err).__name__}: "
            f"{_first_line(err)}); run again with -v for the traceback and "
            "please report it\n",
        )
    finally:
        _budget.PARTIAL_ON_INTERRUPT = partial
        if handler is not None:
            log.removeHandler(handler)
            log.setLevel(level)


def _starting_line(args):
    """On a terminal, say at once what the command is doing while numpy, pandas and numba
    load (seconds on a busy machine, before the command's first line); return what wipes
    the line. Nothing is written to a pipe or a file, or with ``--quiet``."""
    stream = sys.stderr
    if getattr(args, "quiet", False) or not getattr(stream, "isatty", lambda: False)():
        return lambda: None
    stream.write(f"bnfs {args.command}: starting (loading numpy, pandas and numba)...")
    stream.flush()

    def wipe():
        stream.write("\r\033[K")
        stream.flush()

    return wipe


def _one_line_warning(command, seen, message, category, filename, lineno, file=None, line=None):
    """A warning as the command line shows it: one line, no source location, and once a
    run (``seen`` holds the lines shown: structural EM's rounds raise the same warning each
    round)."""
    text = f"bnfs {command}: warning: {_first_line(message)}"
    if text in seen:
        return
    seen.add(text)
    print(text, file=sys.stderr)


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__
