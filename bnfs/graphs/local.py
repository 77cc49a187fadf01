"""What a local learner returns: a list of variable names with its provenance."""

from __future__ import annotations

__all__ = ["LocalResult"]


class LocalResult(list):
    """What a local learner returns: the variable names found (a plain list to every
    caller), with ``learning``, the provenance the network learners carry: the target,
    test, alpha, options and the tests it ran (``n_tests``; cached repeats not counted);
    the learners' door (:func:`bnfs._real_data.takes_real_data`) adds the algorithm and the
    seconds. A constant target gets an empty one that says so (``constant_target``).

    Examples
    --------
    >>> from bnfs import datasets
    >>> from bnfs.constraint import iamb_mb
    >>> found = iamb_mb(datasets.sample("asia", 2000, seed=0), "either")
    >>> found.learning["algorithm"], found.learning["test"], found.learning["n_tests"] > 0
    ('iamb_mb', 'g2', True)
    """

    def __init__(self, names, learning: dict):
        super().__init__(names)
        self.learning = learning
