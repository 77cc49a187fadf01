"""The argument parser of every command (options generated from the learner registry)."""

from __future__ import annotations

import argparse
from pathlib import Path

from bnfs import learners
from bnfs._vocabulary import SCORES, TESTS
from bnfs.cli._inputs import (
    add_kind_options,
    int_at_least,
    n_jobs_arg,
    positive_float,
    probability,
)
from bnfs.cli.blanket import blanket_command
from bnfs.cli.example import example_command
from bnfs.cli.graphs import compare_command, draw_command, score_command
from bnfs.cli.learn import learn_command
from bnfs.cli.posterior import posterior_command
from bnfs.cli.select import CLASSIFIERS, select_command
from bnfs.cli.warmup import warmup_command
from bnfs.select import registry as selectors

#: the scores, from the kernel-free table (parsing the command line imports no kernel)
SCORE_CHOICES = SCORES

EXAMPLE_EPILOG = """examples:
  bnfs example                                   # alarm, 5,000 rows, target HYPOVOLEMIA
  bnfs example --network asia --target either --out asia.png
"""


LEARN_EPILOG = """examples:
  bnfs learn data.csv --out net.json
  bnfs learn data.csv --algorithm pc_stable --test g2 --alpha 0.01 --out net.dot
  bnfs learn data.arff --algorithm sparse_candidate --max-parents 5 --out net.bif
  bnfs learn data.csv --algorithm boss --score bde --prior vsp --out net.json
  bnfs learn data.tsv --blacklist forbidden.csv --seed 1 --out net.graphml
  bnfs learn big.parquet --algorithm hill_climbing --max-time 3600 --checkpoint hc.json --out net.json
"""


BLANKET_EPILOG = """examples:
  bnfs blanket data.csv --target class
  bnfs blanket net.json --target class      (the network bnfs learn wrote: no learning)
  bnfs blanket data.csv --target -1 --algorithm hiton_mb --alpha 0.01

The data are read and typed as bnfs learn reads them (continuous columns modelled as they
are), so the blanket is the one in bnfs learn's network; bnfs select cuts continuous
features for the class first (--discretize mdl here does the same) and says so.
"""


SELECT_EPILOG = """examples:
  bnfs select data.csv --target class --method hsmb
  bnfs select data.csv --target class --method markov_blanket --cv 10 --classifier svm
"""


POSTERIOR_EPILOG = """examples:
  bnfs posterior data.csv --out strength.csv --target class
  bnfs posterior data.csv --out strength.csv --median net.json --report posterior.html
"""


DRAW_EPILOG = """examples:
  bnfs draw net.json --out net.svg --highlight class
"""


SCORE_EPILOG = """examples:
  bnfs score data.csv net.json --score bde
"""


COMPARE_EPILOG = """examples:
  bnfs compare learned.json truth.bif
"""


class FileArgument:
    """The argparse type of an argument that names a file: ``reads`` for the files a
    command reads, else a file it writes (a checkpoint, read back, counts as written).
    :func:`build_parser` lists each command's file arguments from these, so that the check
    that no output is an input (``bnfs.cli._check_outputs``) covers every input option,
    including the next one added."""

    def __init__(self, label: str, reads: bool):  # label: "data file" or "--out"
        self.label, self.reads = label, reads

    def __call__(self, text: str) -> Path:
        return Path(text)

    def __repr__(self) -> str:  # argparse names the type in its errors
        return "path"


def reads(label: str) -> FileArgument:
    """The type of an argument naming a file the command reads (``label`` names it in
    messages: "data file", "blacklist")."""
    return FileArgument(label, reads=True)


def writes(flag: str) -> FileArgument:
    """The type of an argument naming a file the command writes."""
    return FileArgument(flag, reads=False)


def file_arguments(command: argparse.ArgumentParser) -> tuple[tuple[str, FileArgument], ...]:
    """The ``(dest, type)`` of every argument of ``command`` that names a file."""
    return tuple(
        (action.dest, action.type)
        for action in command._actions  # argparse keeps no public list of a parser's arguments
        if isinstance(action.type, FileArgument)
    )


def common_options(quiet: bool = True) -> argparse.ArgumentParser:
    """The options every subcommand takes (``--quiet`` where ``quiet``)."""
    parent = argparse.ArgumentParser(add_help=False)
    if quiet:
        parent.add_argument(
            "--quiet",
            action="store_true",
            help="no progress bars (drawn only when stderr is a terminal)",
        )
    parent.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    return parent


#: what the default learner of ``blanket`` and ``select`` is
AUTO_HELP = (
    ": learn's network while features^2 x rows <= 2e8, neighbourhood_mb past it, as "
    "MarkovBlanketSelector()"
)


def learning_options(default: str, algorithms: tuple[str, ...]) -> argparse.ArgumentParser:
    """The options of the subcommands that learn: ``--algorithm`` among ``algorithms``
    (``default`` when not given) and what the learners share."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.set_defaults(default_algorithm=default)
    learning = parent.add_argument_group(
        "learning (options left out keep the learner's defaults, as in Python)"
    )
    network = [a for a in algorithms if not learners.get(a).local]
    local = [a for a in algorithms if learners.get(a).local]
    learning.add_argument(
        "--algorithm",
        choices=algorithms,
        metavar="ALGORITHM",
        help=f"learner (default {default}{AUTO_HELP if default == 'auto' else ''}): "
        f"{', '.join(network)}" + (f"; local: {', '.join(local)}" if local else ""),
    )
    learning.add_argument(
        "--score",
        choices=SCORE_CHOICES,
        help="score of the score-based learners (default: the learner's; for learn bde on "
        "discrete and bge on standardized continuous data, both with the vsp prior; bic for "
        "the others: bic-g on continuous and bic-cg on mixed data)",
    )
    learning.add_argument(
        "--test",
        choices=TESTS,
        help="independence test of the constraint-based learners (default g2; tpda: mi_threshold)",
    )
    learning.add_argument(
        "--alpha", type=probability, help="significance level of the test (default 0.05)"
    )
    learning.add_argument(
        "--prior",
        choices=("uniform", "vsp", "marginal", "cs"),
        help="graph prior of the Bayesian scores bde and bge (boss, grasp; default uniform): "
        "bnlearn's vsp (variable selection), marginal (marginal uniform) or cs (beliefs about "
        "single arcs, from --beliefs)",
    )
    learning.add_argument(
        "--beta",
        type=probability,
        help="the vsp prior's arc probability (default 1/(n-1)) or the marginal prior's "
        "probability that two nodes are joined (default 0.5)",
    )
    learning.add_argument(
        "--beliefs",
        type=reads("beliefs file"),
        metavar="CSV",
        help="the cs prior's beliefs about single arcs (implies --prior cs): a CSV, one "
        "from,to,prob per line (smoke,lung,0.9); a first line 'from,to,prob' (or other names "
        "that are not columns) is a header, # starts a comment",
    )
    learning.add_argument(
        "--threshold",
        type=positive_float,
        help="mutual-information threshold of the mi_threshold test, tpda's default (default 0.01)",
    )
    learning.add_argument("--max-parents", type=int_at_least(1), help="parents per node")
    learning.add_argument(
        "--scan-order",
        choices=("names", "scores", "columns"),
        help="how hill_climbing, tabu_search and sparse_candidate break ties (default "
        "names: by name; scores: nodes by their own scores, Tabu-Stable's order; both give "
        "the same graph for any column order; columns: bnlearn's order, its graph)",
    )
    learning.add_argument(
        "--blacklist",
        type=reads("blacklist"),
        help="forbidden arcs: a CSV, one from,to per line (smoke,lung); a first line "
        "'from,to' (or other names that are not columns) is a header, # starts a comment; for "
        "a local learner, variables to leave out, one name per line",
    )
    learning.add_argument(
        "--whitelist",
        type=reads("whitelist"),
        help="required arcs, in the --blacklist file's form; for a local learner, "
        "variables to keep in the set, one name per line",
    )
    learning.add_argument(
        "--tiers",
        type=reads("tiers file"),
        help="temporal tiers, one per line, names separated by commas: no arc from a later "
        "tier into an earlier one (network learners)",
    )
    learning.add_argument(
        "--roots", nargs="+", metavar="NAME", help="nodes without parents (network learners)"
    )
    learning.add_argument(
        "--leaves", nargs="+", metavar="NAME", help="nodes without children (network learners)"
    )
    learning.add_argument("--seed", type=int_at_least(0), default=0, help="random seed (default 0)")
    learning.add_argument(
        "--max-time",
        type=positive_float,
        metavar="SECONDS",
        help="stop the search after this long with the best graph (or set) so far",
    )
    learning.add_argument(
        "--checkpoint",
        type=writes("--checkpoint"),
        metavar="FILE",
        help="hill_climbing/tabu_search: save progress here and resume from it when it exists",
    )
    learning.add_argument(
        "--n-jobs",
        type=n_jobs_arg,
        default=1,
        metavar="N",
        help="cores (-1: all); results do not depend on it (default 1)",
    )
    learning.add_argument(
        "--discretize",
        choices=("auto", "quantile", "interval", "mdl"),
        help="how continuous columns become discrete; auto (the default) keeps them "
        "continuous (Gaussian or conditional-Gaussian models) for the learners that model "
        "them and bins by quantile for the others",
    )
    learning.add_argument("--bins", type=int_at_least(2), help="bins (default 3)")
    add_kind_options(learning)
    learning.add_argument(
        "--dropna",
        action="store_true",
        help="drop rows with missing values (default: learn from them by available-case "
        "tests or structural EM where the learner can, else refuse them)",
    )
    return parent


class _Parser(argparse.ArgumentParser):
    """argparse's parser with one-line errors: the message and where the usage is, not the
    usage itself (a learner's options fill fifteen lines before the one that matters)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``bnfs`` argument parser with every subcommand."""
    parser = _Parser(
        prog="bnfs",
        description="Bayesian-network structure learning and Markov-blanket "
        "feature selection. Data: CSV, TSV, Parquet or ARFF.",
    )
    from bnfs import __version__

    parser.add_argument("--version", action="version", version=f"bnfs {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    raw = argparse.RawDescriptionHelpFormatter
    # read from the registry when the parser is built: a learner added there is offered
    networks, locals_ = (
        learners.names("score", "hybrid", "constraint"),
        learners.names("blanket", "neighbours"),
    )

    learn = sub.add_parser(
        "learn",
        help="learn a network from data and write it",
        parents=[learning_options("learn", networks), common_options()],
        description="Learn a Bayesian network (score-based: a DAG; "
        "constraint-based: a PDAG) and write it as JSON, DOT, "
        "BIF (with fitted tables) or GraphML.",
        epilog=LEARN_EPILOG,
        formatter_class=raw,
    )
    learn.add_argument("data", type=reads("data file"), help="data file")
    learn.add_argument(
        "--out",
        type=writes("--out"),
        required=True,
        help="output: .json, .dot, .bif or .graphml; a .bif holds tables fitted by maximum "
        "likelihood plus a pseudo-count of 1 per cell, so that no state has probability 0 "
        "(bnfs.io.to_pgmpy(dag, data, pseudo_count=1) fits the same)",
    )
    learn.add_argument(
        "--report", type=writes("--report"), help="also write a self-contained HTML report"
    )
    learn.add_argument("--highlight", help="column whose blanket the report colours")
    learn.set_defaults(func=learn_command)

    blanket = sub.add_parser(
        "blanket",
        help="print the Markov blanket of a column",
        parents=[
            learning_options("auto", networks + locals_),
            common_options(),
        ],
        description="Learn a network (or run a local learner), or read a network file "
        "(.json, .bif, .graphml), and print the target's parents, children and spouses.",
        epilog=BLANKET_EPILOG,
        formatter_class=raw,
    )
    blanket.add_argument(
        "data", type=reads("data file"), help="data file, or a network file bnfs learn wrote"
    )
    blanket.add_argument("--target", required=True, help="column name or index (-1: the last)")
    blanket.set_defaults(func=blanket_command)

    select = sub.add_parser(
        "select",
        help="select features for a target column",
        parents=[learning_options("auto", networks + locals_), common_options()],
        description="Run a feature selector and print the features; with "
        "--cv, compare a classifier on them with all features.",
        epilog=SELECT_EPILOG,
        formatter_class=raw,
    )
    select.add_argument("data", type=reads("data file"), help="data file")
    select.add_argument("--target", required=True, help="column name or index (-1: the last)")
    select.add_argument(
        "--method",
        default="markov_blanket",
        choices=selectors.names(),  # read when the parser is built
        help="selector (default markov_blanket, learner from --algorithm)",
    )
    select.add_argument("--cv", type=int_at_least(2), help="folds of cross-validation")
    select.add_argument(
        "--classifier",
        default="svm",
        choices=CLASSIFIERS,
        help="classifier for --cv (default svm: linear, C=1)",
    )
    select.add_argument(
        "--report",
        type=writes("--report"),
        help="also write a self-contained HTML report (with --cv: accuracy "
        "against the number of features)",
    )
    select.set_defaults(func=select_command)

    _add_graph_commands(sub, raw)
    _add_posterior_command(sub, raw)

    example = sub.add_parser(
        "example",
        help="learn a bundled network from sampled data, print a blanket, draw it",
        parents=[common_options()],
        description="Sample rows from a bundled network, learn its structure with "
        "bnfs.learn (the most accurate learner: BOSS under BDeu, several starts), print the "
        "Markov blanket of a target and write a picture.",
        epilog=EXAMPLE_EPILOG,
        formatter_class=raw,
    )
    example.add_argument("--network", default="alarm", help="bundled network (default alarm)")
    example.add_argument("--target", help="node whose blanket is printed")
    example.add_argument(
        "--rows", type=int_at_least(2), default=5000, help="rows to sample (default 5000)"
    )
    example.add_argument("--seed", type=int_at_least(0), default=0, help="random seed (default 0)")
    example.add_argument(
        "--out",
        type=writes("--out"),
        default=Path("bnfs-example.svg"),
        help="picture to write: .svg, .png or .pdf (default bnfs-example.svg in "
        "the current folder)",
    )
    example.set_defaults(func=example_command)
    _add_warmup_command(sub)
    for command in sub.choices.values():
        command.set_defaults(file_arguments=file_arguments(command))
    return parser


def _add_posterior_command(sub, raw) -> None:
    """``bnfs posterior``: :func:`bnfs.structure_posterior`'s options."""
    post = sub.add_parser(
        "posterior",
        help="how sure each arc is: a posterior over structures (order MCMC)",
        parents=[common_options()],
        description="Sample DAGs by order MCMC (bnfs.structure_posterior) and write each "
        "pair's probability of being linked and its direction, in boot_strength's table.",
        epilog=POSTERIOR_EPILOG,
        formatter_class=raw,
    )
    post.add_argument("data", type=reads("data file"), help="data file")
    post.add_argument("--out", type=writes("--out"), required=True, help="strength table: .csv")
    post.add_argument("--median", type=writes("--median"), help="median-probability graph file")
    post.add_argument("--report", type=writes("--report"), help="HTML report")
    post.add_argument("--target", help="column whose blanket membership is printed")
    post.add_argument("--highlight", help="column the report colours (default --target)")
    post.add_argument("--score", choices=SCORE_CHOICES, help="default: learn's (bde, bge)")
    post.add_argument("--prior", choices=("uniform", "vsp", "marginal", "cs"))
    post.add_argument("--beta", type=probability, help="the vsp or marginal prior's")
    post.add_argument("--beliefs", type=reads("beliefs file"), metavar="CSV", help="cs prior")
    post.add_argument("--max-parents", type=int_at_least(1), help="parents per node")
    for flag in ("--blacklist", "--whitelist"):
        post.add_argument(flag, type=reads(flag[2:]), help="a CSV of from,to arcs")
    post.add_argument("--tiers", type=reads("tiers file"), help="temporal tiers, one a line")
    post.add_argument("--roots", nargs="+", metavar="NAME", help="nodes without parents")
    post.add_argument("--leaves", nargs="+", metavar="NAME", help="nodes without children")
    post.add_argument("--seed", type=int_at_least(0), default=0, help="random seed (default 0)")
    post.add_argument("--max-time", type=positive_float, metavar="SECONDS")
    post.add_argument("--n-jobs", type=n_jobs_arg, default=1, metavar="N", help="chains at once")
    post.add_argument("--discretize", choices=("auto", "quantile", "interval", "mdl"))
    post.add_argument("--bins", type=int_at_least(2), help="bins (default 3)")
    add_kind_options(post)
    post.add_argument("--dropna", action="store_true", help="drop rows with missing values")
    post.add_argument(
        "--iss",
        type=lambda text: text if text == "auto" else positive_float(text),
        default="auto",
        help="BDeu's imaginary sample size, or auto (default: chosen by marginal likelihood)",
    )
    post.add_argument("--space", choices=("pc", "learn", "pc+learn", "full"), default="pc")
    post.add_argument("--max-candidates", type=int_at_least(0), default=10)
    post.add_argument("--no-plus1", action="store_true", help="no parent from outside them")
    post.add_argument("--chains", type=int_at_least(1), default=4)
    post.add_argument("--samples", type=int_at_least(1), default=1000, help="per chain")
    post.add_argument("--steps", type=int_at_least(1), help="per chain, burn-in included")
    post.set_defaults(func=posterior_command)


def _add_warmup_command(sub) -> None:
    """``bnfs warmup``: the kernels compiled once, for a Docker image or a cluster's workers."""
    from bnfs.cli.warmup import PATHS

    warm = sub.add_parser(
        "warmup",
        help="compile the kernels of every kind of data once (Docker images, clusters)",
        parents=[common_options()],
        description="Compile the numba kernels of the call paths users meet (discrete, "
        "Gaussian, mixed, with gaps, weighted, CI tests, selectors, posterior), a process "
        "per core, so that later runs on this machine load them. pip install . does this "
        "for the package it builds; run it where the install was built for another machine.",
    )
    warm.add_argument(
        "--paths", nargs="+", choices=PATHS, default=list(PATHS), help="call paths (default all)"
    )
    warm.add_argument(
        "--jobs",
        type=n_jobs_arg,
        default=-1,
        help="processes side by side (default -1: a core each)",
    )
    warm.add_argument(
        "--into",
        type=writes("--into"),
        help="also write the compiled entries, compressed, into this folder with a manifest "
        "(what pip install . ships)",
    )
    warm.add_argument(
        "--portable",
        action="store_true",
        help="with --into: machine code for any CPU of this platform (a wheel that travels)",
    )
    warm.set_defaults(func=warmup_command)


def _add_graph_commands(sub, raw) -> None:
    """The commands that read a network file: draw, score, compare."""
    draw = sub.add_parser(
        "draw",
        help="draw a network file",
        parents=[common_options(False)],
        description="Draw a network (.json, .bif or .graphml) as SVG, PNG or PDF.",
        epilog=DRAW_EPILOG,
        formatter_class=raw,
    )
    draw.add_argument(
        "network", type=reads("network file"), help="network file (.json, .bif or .graphml)"
    )
    draw.add_argument(
        "--out", type=writes("--out"), required=True, help="picture: .svg, .png or .pdf"
    )
    draw.add_argument("--highlight", help="node whose blanket is coloured")
    draw.set_defaults(func=draw_command)

    score = sub.add_parser(
        "score",
        help="score a network on data",
        parents=[common_options(False)],
        description="The score of a network (.json, .bif or .graphml) on a data file.",
        epilog=SCORE_EPILOG,
        formatter_class=raw,
    )
    score.add_argument("data", type=reads("data file"), help="data file")
    score.add_argument(
        "network", type=reads("network file"), help="network file (.json, .bif or .graphml)"
    )
    score.add_argument("--score", default="bic", choices=SCORE_CHOICES)
    score.add_argument("--iss", type=float, default=1.0, help="BDeu imaginary sample size")
    score.add_argument(
        "--discretize", default="auto", choices=("auto", "quantile", "interval", "mdl")
    )
    score.add_argument("--bins", type=int_at_least(2), default=3)
    add_kind_options(score)
    score.add_argument("--dropna", action="store_true", help="drop rows with missing values")
    score.set_defaults(func=score_command)

    compare = sub.add_parser(
        "compare",
        help="compare a learned network with a true one",
        parents=[common_options(False)],
        description="Structural Hamming distance and skeleton and arc "
        "precision / recall of two networks (.json, .bif or .graphml).",
        epilog=COMPARE_EPILOG,
        formatter_class=raw,
    )
    compare.add_argument("learned", type=reads("network file"))
    compare.add_argument("truth", type=reads("network file"))
    compare.set_defaults(func=compare_command)
