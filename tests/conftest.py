import os
import shutil

import pandas as pd
import pytest
from hypothesis import settings

# derandomized: CI draws the same examples every run; benchmarks/fuzz_readers.py explores
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def asia():
    from bnfs import datasets

    return datasets.network_model("asia")


def path_without_graphviz() -> str:
    """PATH with every folder that holds graphviz's ``dot`` left out: what a fresh machine
    without graphviz sees (drawing falls back to matplotlib)."""
    folders = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(f for f in folders if not shutil.which("dot", path=f))


@pytest.fixture(
    params=[
        "without graphviz",
        pytest.param(
            "with graphviz",
            marks=pytest.mark.skipif(
                shutil.which("dot") is None, reason="graphviz 'dot' is not installed here"
            ),
        ),
    ]
)
def drawing_env(request):
    """Environment for a subprocess that draws: once with ``dot`` hidden from PATH (always
    run, so CI proves the fallback), once with graphviz when this machine has it."""
    env = dict(os.environ)
    if request.param == "without graphviz":
        env["PATH"] = path_without_graphviz()
    return env


# -- data files the command-line tests (tests/cli/) share, one copy per test module --
@pytest.fixture(scope="module")
def files(tmp_path_factory):
    import bnfs

    root = tmp_path_factory.mktemp("cli")
    frame = bnfs.datasets.sample("asia", 3000, seed=4)
    frame.to_csv(root / "asia.csv", index=False)
    frame.to_csv(root / "asia.tsv", sep="\t", index=False)
    lines = ["@relation asia"] + [
        f"@attribute {c} {{{','.join(sorted(frame[c].unique()))}}}" for c in frame.columns
    ]
    lines += ["@data"] + [",".join(row) for row in frame.astype(str).itertuples(index=False)]
    (root / "asia.arff").write_text("\n".join(lines) + "\n")
    holes = frame.copy()
    holes.loc[3, "tub"] = None
    holes.to_csv(root / "holes.csv", index=False)
    bnfs.io.write_bif(
        bnfs.DiscreteNetwork.fit(bnfs.datasets.network("asia"), frame, pseudo_count=1.0),
        root / "truth.bif",
    )
    (root / "black.csv").write_text("from,to\nsmoke,lung\n")
    (root / "asia.csv.names").write_text("smoke\nnope\n")
    return root, frame


@pytest.fixture(scope="module")
def asia_file(tmp_path_factory):
    import bnfs

    root = tmp_path_factory.mktemp("every")
    frame = bnfs.datasets.sample("asia", 600, seed=5)
    frame.to_csv(root / "asia.csv", index=False)
    (root / "black.csv").write_text("from,to\nsmoke,lung\n")
    (root / "names.txt").write_text("# one variable per line\nsmoke\n")
    (root / "beliefs.csv").write_text("from,to,prob\nlung,smoke,0.7\n")
    (root / "tiers.txt").write_text("asia, smoke\ntub, lung, bronc\neither, xray, dysp\n")
    return root, bnfs.Dataset(root / "asia.csv")


@pytest.fixture(scope="module")
def continuous_file(tmp_path_factory):
    """A class with two informative continuous features and two noise ones."""
    import numpy as np

    rng = np.random.default_rng(3)
    n = 400
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "a": y + rng.normal(0, 0.8, n),
            "b": -y + rng.normal(0, 1.5, n),
            "c": rng.normal(0, 1, n),
            "d": rng.exponential(1, n),
            "y": np.where(y == 1, "yes", "no"),
        }
    )
    root = tmp_path_factory.mktemp("continuous")
    frame.to_csv(root / "c.csv", index=False)
    return root, frame
