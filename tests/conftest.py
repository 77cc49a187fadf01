import os
import shutil

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
