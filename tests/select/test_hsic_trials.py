"""The compiled trial sets of HSMB and BAHSIC against the plain numpy HSIC they replace."""

import numpy as np
import pytest

from bnfs._kernels.hsic import centre, delta_gram, hsic, median_width2, squared_distances
from bnfs._kernels.hsic_trials import (
    median,
    set_distances,
    trial_columns,
    trial_dependences,
    trial_measure,
)
from bnfs.select._kernel_input import normalized_hsic


@pytest.mark.kernels
@pytest.mark.parametrize("size", [1, 2, 3, 50, 4949, 4950])
@pytest.mark.parametrize("kind", ["uniform", "skewed", "ties", "sorted"])
def test_median_is_numpys(size, kind):
    rng = np.random.default_rng(size)
    values = {
        "uniform": rng.random(size),
        "skewed": rng.exponential(size=size) ** 4,
        "ties": np.round(rng.random(size), 1),
        "sorted": np.sort(rng.random(size)),
    }[kind]
    bins = np.empty(max(64, size // 16), dtype=np.int64)
    assert median(values.copy(), size, bins) == np.median(values)


def _blocks(m, rng):
    # numbers, a one-hot categorical block, and an exact copy of the first column
    number = rng.normal(size=(m, 1))
    one_hot = np.eye(3)[rng.integers(0, 3, m)]
    return [number, one_hot, rng.normal(size=(m, 1)), number.copy()]


# beyond 1,000 rows the median samples rows; the small case reruns without the JIT
@pytest.mark.parametrize("m", [pytest.param(40, marks=pytest.mark.kernels), 1100])
def test_trials_match_numpy(m):
    rng = np.random.default_rng(m)
    blocks = _blocks(m, rng)
    target = centre(delta_gram(rng.integers(0, 2, m)))
    columns = trial_columns(blocks)
    trials = np.arange(len(blocks), dtype=np.int64)

    def gram(features, width):
        d2 = squared_distances(np.hstack([blocks[f] for f in features]))
        return np.exp(d2 * (-1.0 / (width * median_width2(d2))))

    # HSMB: normalized HSIC of {block 2} joined by each block, narrow kernel
    out = np.empty(len(blocks))
    written = trial_dependences(
        set_distances(blocks, [2]),
        1.0,
        trials,
        columns,
        trial_measure(target, 0.5, normalized=True),
        np.inf,
        out,
    )
    assert written == len(blocks)
    expected = [normalized_hsic(centre(gram([2, f], 0.5)), target) for f in trials]
    np.testing.assert_allclose(out, expected, rtol=1e-9)

    # BAHSIC: HSIC of all blocks but one, standard kernel
    written = trial_dependences(
        set_distances(blocks, trials),
        -1.0,
        trials,
        columns,
        trial_measure(target, 2.0, normalized=False),
        np.inf,
        out,
    )
    rest = [[g for g in trials if g != f] for f in trials]
    np.testing.assert_allclose(out, [hsic(gram(r, 2.0), target) for r in rest], rtol=1e-9)

    # the first trial above stop_above ends the call
    assert (
        trial_dependences(
            set_distances(blocks, trials),
            -1.0,
            trials,
            columns,
            trial_measure(target, 2.0, normalized=False),
            out[0] - 1e-12,
            out,
        )
        == 1
    )
