"""Fixtures the tests of this room share."""

import pytest

from bnfs import datasets


@pytest.fixture(scope="module")
def asia_sample():
    return datasets.sample("asia", 4000, seed=2), datasets.network("asia")
