import os

import pytest
from hypothesis import settings

# derandomized: CI draws the same examples every run; benchmarks/fuzz_readers.py explores
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def asia():
    from bnfs import datasets
    return datasets.network_model("asia")
