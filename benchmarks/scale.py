"""Scale (issue 7): speed-up of n_jobs=2 over n_jobs=1, large networks and many rows, with
time and peak memory, and the bootstrap on a local Dask cluster against joblib's loky.

Each case runs in a fresh process so that its peak resident memory (ru_maxrss) is its own;
times are warm (a first, untimed call compiles or loads the numba kernels).

    python benchmarks/scale.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap

CASE = textwrap.dedent("""
    import json, resource, time
    import bnfs
    from bnfs import datasets
    {setup}
    {warm}
    start = time.perf_counter()
    {run}
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({{"seconds": seconds, "peak_mb": peak, "note": str({note})}}))
""")


def case(setup: str, run: str, note: str = "''", warm: str = "") -> dict:
    code = CASE.format(setup=setup, run=run, note=note, warm=warm)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=3600)
    if done.returncode != 0:
        return {"seconds": float("nan"), "peak_mb": float("nan"),
                "note": "failed: " + done.stderr.strip().splitlines()[-1][:120]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def show(label: str, result: dict) -> None:
    print(f"{label:48} {result['seconds']:9.2f} s {result['peak_mb']:9.0f} MB  {result['note']}",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller data, for a smoke run")
    args = parser.parse_args()
    rows_big = 100_000 if args.quick else 1_000_000
    andes_rows = 5_000 if args.quick else 50_000

    print("n_jobs=2 against n_jobs=1 (2 cores)")
    boot = "d = datasets.sample('alarm', 5000, seed=0)"
    for label, setup, run, warm in [
        ("bootstrap, hill climbing, alarm 5000, R=40", boot,
         "bnfs.boot_strength(d, R=40, seed=1, n_jobs={jobs})",
         "bnfs.boot_strength(d, R=2, seed=1, n_jobs={jobs})"),
        ("pc_stable, andes 5000", "d = bnfs.Dataset(datasets.sample('andes', 5000, seed=0))",
         "bnfs.pc_stable(d, 'g2', 0.01, n_jobs={jobs})",
         "bnfs.pc_stable(d, 'g2', 0.01, n_jobs={jobs})"),
    ]:
        one = case(setup, run.format(jobs=1), warm=warm.format(jobs=1))
        two = case(setup, run.format(jobs=2), warm=warm.format(jobs=2))
        show(f"{label}, n_jobs=1", one)
        show(f"{label}, n_jobs=2", two)
        print(f"{'':48} speed-up {one['seconds'] / two['seconds']:.2f}x (target 1.7x)")
    print("hill climbing has no n_jobs yet: its moves are one compiled loop\n")

    print("large data")
    show("hill climbing, munin (1041 nodes), 5000 rows",
         case("f = datasets.sample('munin', 5000, seed=0)\n"
              "d = bnfs.Dataset(f.loc[:, f.nunique() > 1])  # rare states: constant columns",
              "g = bnfs.hill_climbing(d, 'bic', max_parents=4)", "g",
              "bnfs.hill_climbing(d.take(range(200)), 'bic', max_parents=4)"))
    show(f"hill climbing, alarm, {rows_big:,} rows",
         case(f"d = bnfs.Dataset(datasets.sample('alarm', {rows_big}, seed=0))",
              "g = bnfs.hill_climbing(d, 'bic')", "bnfs.shd(g, datasets.network('alarm'))",
              "bnfs.hill_climbing(d.take(range(1000)), 'bic')"))
    show(f"pc_stable, andes, {andes_rows:,} rows",
         case(f"d = bnfs.Dataset(datasets.sample('andes', {andes_rows}, seed=0))",
              "g = bnfs.pc_stable(d, 'g2', 0.01)", "g",
              "bnfs.pc_stable(d.take(range(500)), 'g2', 0.01)"))

    print("\nbootstrap R=40 on alarm 5000: local Dask cluster (2 workers) against loky (2 jobs)")
    dask_setup = boot + "\nfrom distributed import Client, LocalCluster\n" \
        "cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)\n" \
        "client = Client(cluster)\nfrom bnfs.parallel import use_dask"
    show("dask LocalCluster", case(
        dask_setup, "with use_dask(client):\n        bnfs.boot_strength(d, R=40, seed=1)",
        warm="with use_dask(client):\n        bnfs.boot_strength(d, R=2, seed=1)"))
    show("joblib loky", case(boot, "bnfs.boot_strength(d, R=40, seed=1, n_jobs=2)",
                             warm="bnfs.boot_strength(d, R=2, seed=1, n_jobs=2)"))


if __name__ == "__main__":
    main()
