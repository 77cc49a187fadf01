"""Fuzzing the readers: mutated BIF, ARFF and CSV text either parses or raises a
ValueError / TypeError with a message, never another exception or a hang.

``benchmarks/fuzz_readers.py`` runs the same targets for longer.
"""

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bnfs import Dataset, datasets
from bnfs.io import parse_arff, write_bif
from bnfs.models.bif import parse_bif

ALPHABET = "{}[]();,|=\"'% \n\t.-+0123456789eabc?@"


def _seed_bif() -> str:
    return write_bif(datasets.network_model("asia"))


def _seed_arff() -> str:
    return (
        "@relation t\n@attribute 'a b' {x,y,'z w'}\n@attribute n numeric\n"
        "@attribute s string\n@data\nx,1.5,hello\ny,?,'a,b'\n{0 x, 1 2}\n"
    )


def _seed_csv() -> str:
    return datasets.sample("asia", 30, seed=0).to_csv(index=False)


@st.composite
def mutated(draw, seed: str):
    """``seed`` with a few characters deleted, replaced or inserted."""
    text = list(seed)
    for _ in range(draw(st.integers(1, 8))):
        if not text:
            break
        i = draw(st.integers(0, len(text) - 1))
        action = draw(st.sampled_from(["delete", "replace", "insert", "cut"]))
        char = draw(st.sampled_from(ALPHABET))
        if action == "delete":
            del text[i]
        elif action == "replace":
            text[i] = char
        elif action == "insert":
            text.insert(i, char)
        else:
            text = text[:i]
    return "".join(text)


FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
CLEAN = (ValueError, TypeError)


def check_bif(text: str) -> None:
    try:
        network = parse_bif(text)
    except CLEAN as err:
        assert str(err)
        return
    assert set(network.dag.nodes) == set(network.cpts)  # a parse is a whole network


def check_arff(text: str) -> None:
    try:
        frame = parse_arff(text)
    except CLEAN as err:
        assert str(err)
        return
    assert isinstance(frame, pd.DataFrame)


def check_csv(text: str, tmp_path) -> None:
    path = tmp_path / "fuzz.csv"
    path.write_text(text)
    try:
        data = Dataset(path)
    except CLEAN as err:
        assert str(err)
        return
    assert data.codes.shape[0] > 0 and (data.arities >= 2).all()


@FUZZ
@given(mutated(_seed_bif()))
def test_bif_reader(text):
    check_bif(text)


@FUZZ
@given(st.one_of(mutated(_seed_arff()), st.text(ALPHABET, max_size=200)))
def test_arff_reader(text):
    check_arff(text)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(mutated(_seed_csv()))
def test_csv_reader(tmp_path, text):
    check_csv(text, tmp_path)
