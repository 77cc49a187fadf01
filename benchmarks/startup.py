"""Start-up costs a new user meets: ``import bnfs``, ``bnfs --help`` and the first
``bnfs example`` on an empty numba cache (JIT included) against a warm one, beside the import
of the peers that are installed (pgmpy always; pyAgrum and causal-learn with the bench extra).

Every case runs in a fresh interpreter; times are the best of ``--repeat`` runs (the cold
example runs once per installation, each time with a new empty cache folder). ``--compare
PYTHON`` times another installation of bnfs (e.g. a virtual environment holding an earlier
version) in the same run, so the before/after ratio comes from one sitting on one machine.

    python benchmarks/startup.py [--compare /path/to/other/venv/bin/python] [--repeat 5]

``--kernels`` prints where a first call's time goes instead: each call path a newcomer meets
(``bnfs example``, ``bnfs.learn`` on discrete, Gaussian, mixed, gappy and weighted data,
``MarkovBlanketSelector().fit``, ``pc_stable``, ``bnfs blanket``, ``structure_posterior``)
runs in a fresh interpreter on an empty cache and again on the warm one; numba's compile events give each kernel's own compile seconds
(its callees' excluded) and its number of signatures, and the table says which call paths
need it.

Run from an installation built by ``pip install .`` (not an editable one), "empty cache" is a
fresh install: the kernels the build compiled into the package load from it (issue 72's
target: every call path <= 1.5x warm); from an editable install or with
``BNFS_NO_SHIPPED_KERNELS=1`` it is a first use that compiles. ``--compare`` takes the
other, so both come from one sitting.

Targets (issue 61): ``import bnfs`` <= 0.3 s, ``bnfs --help`` <= 0.1 s, ``bnfs example`` on an
empty cache <= 5 times a warm run, the first ``bnfs.learn`` of a 5,000-row discrete table <=
10 s on an empty cache; earlier ones: ``bnfs example`` cold <= 12 s (issue 33), a first
``bnfs.learn`` cold <= 5 times warm (issue 42).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

PEERS = {
    "pgmpy": "import pgmpy",
    "pyAgrum": "import pyagrum",
    "causal-learn": "import causallearn.search.ConstraintBased.PC",
}


def seconds(command: list[str], env: dict | None = None, cwd: str | None = None) -> float:
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stderr[-2000:]}")
    return elapsed


def best(command: list[str], repeat: int, **kwargs) -> float:
    return min(seconds(command, **kwargs) for _ in range(repeat))


def measure(python: str, repeat: int) -> dict[str, float]:
    """Start-up times of the bnfs installed for ``python``."""
    out = {
        "import bnfs": best([python, "-c", "import bnfs"], repeat),
        "bnfs --help": best([python, "-m", "bnfs.cli", "--help"], repeat),
    }
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "NUMBA_CACHE_DIR": os.path.join(folder, "numba")}
        example = [
            python,
            "-m",
            "bnfs.cli",
            "example",
            "--quiet",
            "--out",
            os.path.join(folder, "example.svg"),
        ]
        out["bnfs example, empty cache"] = seconds(example, env=env, cwd=folder)
        out["bnfs example, warm cache"] = best(example, max(1, repeat // 2), env=env, cwd=folder)
    with tempfile.TemporaryDirectory() as folder:  # a first bnfs.learn in Python (issue 42.16)
        env = {**os.environ, "NUMBA_CACHE_DIR": os.path.join(folder, "numba")}
        first = [python, "-c", FIRST_LEARN]
        out["first bnfs.learn, empty cache"] = seconds(first, env=env, cwd=folder)
        out["first bnfs.learn, warm cache"] = best(first, max(1, repeat // 2), env=env, cwd=folder)
    return out


#: what a newcomer's first notebook cell does
FIRST_LEARN = "import bnfs; frame = bnfs.datasets.sample('alarm', 5000, seed=0); bnfs.learn(frame)"


#: the call paths a newcomer meets, each run in a fresh interpreter (statements after ``import
#: bnfs``); ``example`` is the README's first command
CALLS = {
    "bnfs example": (
        "from bnfs.cli import main; main(['example', '--quiet', '--out', 'example.svg'])"
    ),
    "learn discrete": "bnfs.learn(bnfs.datasets.sample('alarm', 5000, seed=0))",
    "learn Gaussian": "bnfs.learn(bnfs.datasets.regression(22, n=1000, seed=0))",
    "learn mixed": "bnfs.learn(bnfs.datasets.load_survey().dropna())",
    "learn with gaps": "bnfs.learn(bnfs.datasets.load_survey())",
    "MarkovBlanketSelector": (
        "f = bnfs.datasets.sample('alarm', 5000, seed=0); "
        "bnfs.MarkovBlanketSelector().fit(f.drop(columns='HYPOVOLEMIA'), f['HYPOVOLEMIA'])"
    ),
    "pc_stable": "bnfs.pc_stable(bnfs.datasets.sample('alarm', 5000, seed=0))",
    "learn weighted": (
        "f = bnfs.datasets.sample('alarm', 5000, seed=0); "
        "bnfs.learn(bnfs.Dataset(f).with_weights([1.0 + i % 3 for i in range(5000)]))"
    ),
    "bnfs blanket": (
        "bnfs.datasets.load_survey().to_csv('s.csv', index=False); "
        "from bnfs.cli import main; main(['blanket', 's.csv', '--target', 'smoker', '--quiet'])"
    ),
    "structure_posterior": (
        "bnfs.structure_posterior(bnfs.datasets.sample('alarm', 2000, seed=0), seed=0, "
        "progress=False)"
    ),
}

#: run in the child: times the call and each kernel's own compile (callees excluded)
_PROBE = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
from numba.core import event
stack, rows, typed = [], {}, {}
class Listener(event.Listener):
    def on_start(self, e):
        stack.append([e.data["dispatcher"], time.perf_counter(), 0.0, str(e.data["args"])])
    def on_end(self, e):
        d, began, inner, args = stack.pop()
        took = time.perf_counter() - began
        f = d.py_func
        name = f"{f.__module__.replace('bnfs._kernels.', '')}.{f.__qualname__}"
        row = rows.setdefault(name, [0.0, 0, 0])
        row[0] += took - inner
        typed.setdefault(name, set()).add(args)
        row[1] = len(typed[name])  # distinct signatures
        row[2] += not stack  # compiled for a call from Python
        if stack:
            stack[-1][2] += took
event.register("numba:compile", Listener())
began = time.perf_counter()
import bnfs
exec(sys.argv[1])
print(json.dumps({"seconds": time.perf_counter() - began, "kernels": rows}))
"""


def first_call(python: str, statement: str, folder: str) -> dict:
    """One call in a fresh interpreter with the numba cache in ``folder``: its seconds
    (import included) and, per kernel compiled, [own compile seconds, signatures,
    signatures compiled for a call from Python]."""
    env = {**os.environ, "NUMBA_CACHE_DIR": os.path.join(folder, "numba")}
    result = subprocess.run(
        [python, "-c", _PROBE, statement], capture_output=True, text=True, env=env, cwd=folder
    )
    if result.returncode != 0:
        raise RuntimeError(f"{statement} failed:\n{result.stderr[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def kernel_table(python: str, calls: dict[str, str], other: str | None = None, top: int = 30):
    """Print each call's time on an empty and on a warm cache (and those of ``other``'s bnfs,
    run in turn, when given), and the kernels its first run compiles: own compile seconds,
    signatures, and which calls need them."""
    runs = {}
    head = f"{'call (fresh interpreter)':<24}{'empty':>8}{'warm':>7}{'ratio':>7}{'compiling':>10}"
    head += f"{'kernels':>8}{'sigs':>6}"
    if other:
        head += f"{'| compared: empty':>18}{'warm':>7}{'ratio':>7}{'compiling':>10}{'sigs':>6}"
    print(head)
    for name, statement in calls.items():
        cells = []
        for interpreter in (python, other) if other else (python,):
            with tempfile.TemporaryDirectory() as folder:
                cold = first_call(interpreter, "import bnfs\n" + statement, folder)
                warm = first_call(interpreter, "import bnfs\n" + statement, folder)
            runs.setdefault(name, cold)
            kernels = cold["kernels"].values()
            cells.append(
                (
                    cold["seconds"],
                    warm["seconds"],
                    sum(r[0] for r in kernels),
                    len(kernels),
                    sum(r[1] for r in kernels),
                )
            )
        (c, w, comp, k, sig), *rest = cells
        line = f"{name:<24}{c:>7.1f}s{w:>6.1f}s{c / w:>6.1f}x{comp:>9.1f}s{k:>8}{sig:>6}"
        for c2, w2, comp2, _, sig2 in rest:
            line += f"{'|':>11}{c2:>6.1f}s{w2:>6.1f}s{c2 / w2:>6.1f}x{comp2:>9.1f}s{sig2:>6}"
        print(line, flush=True)
    total: dict[str, list] = {}
    for name, run in runs.items():
        for kernel, (own, signatures, _) in run["kernels"].items():
            row = total.setdefault(kernel, [0.0, 0, []])
            row[0] += own
            row[1] = max(row[1], signatures)
            row[2].append(name)
    print(f"\nkernels by own compile seconds, summed over the {len(runs)} calls (top {top}):")
    print(f"{'kernel':<52}{'seconds':>8}{'sigs':>6}  needed by")
    ranked = sorted(total.items(), key=lambda kv: -kv[1][0])
    for kernel, (own, signatures, names) in ranked[:top]:
        needed = "all" if len(names) == len(runs) else ", ".join(names)
        print(f"{kernel[:51]:<52}{own:>7.2f}s{signatures:>6}  {needed}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", help="python of another bnfs installation to time too")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--kernels", action="store_true", help="where each first call's time goes, per kernel"
    )
    parser.add_argument("--call", action="append", choices=sorted(CALLS), help="with --kernels")
    args = parser.parse_args()
    if args.call and not args.kernels:
        parser.error("--call picks the calls of --kernels; pass --kernels too")
    if args.kernels:
        kernel_table(sys.executable, {c: CALLS[c] for c in args.call or CALLS}, args.compare)
        return
    here = measure(sys.executable, args.repeat)
    other = measure(args.compare, args.repeat) if args.compare else None
    print(f"{'case':<30}{'this bnfs':>12}" + (f"{'compared':>12}{'ratio':>9}" if other else ""))
    for case, value in here.items():
        line = f"{case:<30}{value:>11.2f}s"
        if other:
            line += f"{other[case]:>11.2f}s{other[case] / value:>8.1f}x"
        print(line)
    for peer, statement in PEERS.items():
        try:
            value = best([sys.executable, "-c", statement], args.repeat)
        except RuntimeError:
            print(f"import {peer:<23}{'not installed':>12}")
            continue
        print(
            f"import {peer:<23}{value:>11.2f}s   (import bnfs is "
            f"{value / here['import bnfs']:.1f}x faster)"
        )
    cold = here["first bnfs.learn, empty cache"]
    verdict = "met" if cold <= 10.0 else "NOT met"
    print(
        f"target first bnfs.learn (alarm, 5,000 rows) empty cache <= 10 s: {verdict} ({cold:.1f} s)"
    )
    cold, warm = here["bnfs example, empty cache"], here["bnfs example, warm cache"]
    verdict = "met" if cold <= 5 * warm else "NOT met"
    print(f"target bnfs example empty / warm cache <= 5x: {verdict} ({cold / warm:.1f}x)")
    for case, target in (("import bnfs", 0.3), ("bnfs --help", 0.1)):
        verdict = "met" if here[case] <= target else "NOT met"
        print(f"target {case} <= {target} s: {verdict} ({here[case]:.2f} s)")


if __name__ == "__main__":
    main()
