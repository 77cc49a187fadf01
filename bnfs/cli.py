"""The ``bnfs`` command line."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

EXAMPLE_EPILOG = """examples:
  bnfs example                                   # alarm, 5,000 rows, target HYPOVOLEMIA
  bnfs example --network asia --target either --out asia.png
"""


def _example(args) -> int:
    from bnfs import datasets
    from bnfs.metrics import blanket_scores, shd
    from bnfs.search import hill_climbing

    truth = datasets.network(args.network)
    target = args.target or _default_target(args.network, truth)
    if target not in truth:
        raise ValueError(f"target {target!r} is not a node of {args.network}")
    frame = datasets.sample(args.network, args.rows, seed=args.seed)
    start = time.perf_counter()
    dag = hill_climbing(frame, "bic", seed=args.seed, progress=not args.quiet)
    seconds = time.perf_counter() - start
    print(f"learned {args.network} from {args.rows} sampled rows by BIC hill climbing: "
          f"{dag.n_arcs} arcs in {seconds:.2f} s (true network: {truth.n_arcs} arcs, "
          f"SHD {shd(dag, truth)})")
    print(f"Markov blanket of {target}:")
    for role, names in (("parents", dag.parents(target)), ("children", dag.children(target)),
                        ("spouses", dag.spouses(target))):
        print(f"  {role:<9} {', '.join(names) if names else '-'}")
    quality = blanket_scores(dag, truth, target)
    print(f"  against the true blanket {truth.markov_blanket(target)}: precision "
          f"{quality['precision']:.2f}, recall {quality['recall']:.2f}")
    path = dag.draw(args.out, highlight=target)
    print(f"picture written to {path}")
    return 0


def _default_target(network: str, truth) -> str:
    preferred = {"alarm": "HYPOVOLEMIA", "asia": "either", "win95pts": "NetOK",
                 "child": "Disease", "insurance": "Accident"}
    if network in preferred and preferred[network] in truth:
        return preferred[network]
    return max(truth.nodes, key=lambda v: len(truth.markov_blanket(v)))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bnfs", description="Bayesian-network structure learning and Markov-blanket "
                                 "feature selection.")
    sub = parser.add_subparsers(dest="command", required=True)
    example = sub.add_parser(
        "example", help="learn a bundled network from sampled data, print a blanket, draw it",
        description="Sample rows from a bundled network, learn its structure by BIC hill "
                    "climbing, print the Markov blanket of a target and write a picture.",
        epilog=EXAMPLE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    example.add_argument("--network", default="alarm", help="bundled network (default alarm)")
    example.add_argument("--target", help="node whose blanket is printed")
    example.add_argument("--rows", type=int, default=5000, help="rows to sample (default 5000)")
    example.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    example.add_argument("--out", type=Path, default=Path("bnfs-example.svg"),
                         help="picture to write: .svg, .png or .pdf (default bnfs-example.svg)")
    example.add_argument("--quiet", action="store_true", help="no progress bar")
    example.set_defaults(func=_example)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError, OSError) as err:
        parser.exit(2, f"bnfs {args.command}: error: {err}\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
