"""The network scores and the conditional-independence tests, declared once and free of
kernels. Every list of scores in the
package (the labels :func:`bnfs.score` and the searches take, the scores of each kind of
data, the command line's choices, the Bayesian scores graph priors apply to) and the
flags the compiled kernels read (the kernel code of each label, whether a score is
score-equivalent) are derived from :data:`SCORE_TABLE`. A new score is one row here, one
branch in its kernel and a test (CONTRIBUTING.md).

The CI tests likewise (:data:`TEST_TABLE`): the labels :class:`bnfs.CITest` and the
constraint-based learners take, the command line's ``--test`` choices, and the tests whose
degrees of freedom the subset-conditioning learners adjust by default.

The command line reads this module to offer its choices without importing numba.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ScoreKind",
    "SCORE_TABLE",
    "SCORES",
    "DATA_KINDS",
    "codes_for",
    "graph_prior_scores",
    "score_kind",
    "TestKind",
    "TEST_TABLE",
    "TESTS",
    "TEST_OPTIONS",
    "LEARNER_ADJUSTS_DF",
    "test_kind",
]

#: kernel codes of the discrete scores (branches of :func:`bnfs._kernels.scores.local_score`);
#: LOGLIK, BIC and AIC are also the likelihood part of the Gaussian and CG codes
LOGLIK, BIC, AIC, BDE, K2, BDS, QNML = 0, 1, 2, 3, 4, 5, 6
#: added to LOGLIK / BIC / AIC for bnlearn's residual variance RSS / (n - parents - 1)
BNLEARN_VARIANCE = 10
#: the BGe score (Bayesian Gaussian equivalent; Geiger & Heckerman 1994, with the correction
#: of Kuipers, Moffa & Heckerman 2014, as bnlearn's ``bge``)
BGE = 20
#: offset of the conditional-Gaussian codes (CG + LOGLIK/BIC/AIC [+ BNLEARN_VARIANCE])
CG = 100

#: the kinds of data a score is for
DATA_KINDS = ("discrete", "continuous", "mixed")


@dataclass(frozen=True)
class ScoreKind:
    """One network score.

    Attributes
    ----------
    label : str
        What users pass as ``score``.
    data : {"discrete", "continuous", "mixed"}
        The data it scores.
    code : int
        The kernel's code for it.
    graph_prior : bool
        A Bayesian score the graph priors (``prior=``) apply to; the values equal
        bnlearn-port's for bde, bds and bge (``tests/test_scores.py``). K2 is Bayesian too,
        but bnfs takes no graph prior with it.
    equivalent : bool
        Score-equivalent: Markov-equivalent graphs score alike (checked per row by
        ``tests/test_scores.py``), so the hill-climbing kernel may copy an arc's gain to its
        reverse when neither end has parents, which makes the twins tie exactly; hc graphs
        under bic, bde, k2, aic, bds and qnml equal bnlearn-port's
        (``tests/test_bnlearn_parity.py``).
    bnlearn : str or None
        bnlearn's label for the same score (``None``: bnlearn has no such score).
    """

    label: str
    data: str
    code: int
    graph_prior: bool
    equivalent: bool
    bnlearn: str | None


def _row(label, data, code, graph_prior=False, equivalent=True, bnlearn=None) -> ScoreKind:
    return ScoreKind(label, data, code, graph_prior, equivalent, bnlearn)


#: every score, in the order listings and the command line's choices show them
SCORE_TABLE: tuple[ScoreKind, ...] = (
    _row("bic", "discrete", BIC, bnlearn="bic"),
    _row("bde", "discrete", BDE, graph_prior=True, bnlearn="bde"),
    _row("k2", "discrete", K2, equivalent=False, bnlearn="k2"),
    _row("bds", "discrete", BDS, graph_prior=True, equivalent=False, bnlearn="bds"),
    _row("qnml", "discrete", QNML, bnlearn="qnml"),
    _row("aic", "discrete", AIC, bnlearn="aic"),
    _row("loglik", "discrete", LOGLIK, bnlearn="loglik"),
    # linear Gaussian: "-g" with the maximum-likelihood residual variance RSS / n,
    # "-g-bnlearn" with bnlearn's
    _row("bic-g", "continuous", BIC),
    _row("aic-g", "continuous", AIC),
    _row("loglik-g", "continuous", LOGLIK),
    _row("bic-g-bnlearn", "continuous", BIC + BNLEARN_VARIANCE, bnlearn="bic-g"),
    _row("aic-g-bnlearn", "continuous", AIC + BNLEARN_VARIANCE, bnlearn="aic-g"),
    _row("loglik-g-bnlearn", "continuous", LOGLIK + BNLEARN_VARIANCE, bnlearn="loglik-g"),
    _row("bge", "continuous", BGE, graph_prior=True, bnlearn="bge"),
    # conditional Gaussian, for mixed discrete and continuous data
    _row("bic-cg", "mixed", CG + BIC),
    _row("aic-cg", "mixed", CG + AIC),
    _row("loglik-cg", "mixed", CG + LOGLIK),
    _row("bic-cg-bnlearn", "mixed", CG + BIC + BNLEARN_VARIANCE, bnlearn="bic-cg"),
    _row("aic-cg-bnlearn", "mixed", CG + AIC + BNLEARN_VARIANCE, bnlearn="aic-cg"),
    _row("loglik-cg-bnlearn", "mixed", CG + LOGLIK + BNLEARN_VARIANCE, bnlearn="loglik-cg"),
)

#: every score label
SCORES: tuple[str, ...] = tuple(row.label for row in SCORE_TABLE)


def codes_for(data: str) -> dict[str, int]:
    """Label -> kernel code of the scores for ``data`` (a kind of :data:`DATA_KINDS`)."""
    if data not in DATA_KINDS:
        raise ValueError(f"data must be one of {DATA_KINDS}, got {data!r}")
    return {row.label: row.code for row in SCORE_TABLE if row.data == data}


def graph_prior_scores() -> tuple[str, ...]:
    """The scores graph priors apply to."""
    return tuple(row.label for row in SCORE_TABLE if row.graph_prior)


def score_kind(label: str) -> ScoreKind:
    """The row of score ``label`` (a resolved label: ``"bic-g"``, not ``"bic"`` on
    continuous data)."""
    for row in SCORE_TABLE:
        if row.label == label:
            return row
    raise ValueError(f"score must be one of {', '.join(SCORES)}, got {label!r}")


@dataclass(frozen=True)
class TestKind:
    """One conditional-independence test.

    Attributes
    ----------
    label : str
        What users pass as ``test``.
    data : {"discrete", "continuous", "any"}
        The data it tests (``"g2"`` and ``"mi"`` on continuous or mixed data mean
        ``"mi_cg"``).
    adjusts_df : bool
        The learners that condition on small subsets (PC-stable, HITON, MMPC, PCMB) adjust
        its degrees of freedom unless told ``adjust_df=False``.
    bnlearn : str or None
        bnlearn's label for the test (``None``: bnlearn has none). Parity-tested against
        bnlearn-port: mi, x2, mi-adf, x2-adf, mi-cg; fisher_z is not (bnlearn's zf is the
        same Fisher z by definition, not checked here).
    statistic : {"g2", "x2", "fisher_z", "mi_cg"}
        What it computes: the likelihood-ratio G^2 or Pearson's X^2 of a contingency table
        (the compiled table tests of the local learners and PC-stable), Fisher's z of a
        partial correlation, or the conditional-Gaussian likelihood ratio.
    decision : {"p_value", "p_value_with_power", "threshold"}
        How it decides: independent when the p-value passes ``alpha``; the same unless the
        table has fewer than 5 rows per cell (bnlearn's adjusted-df rule, then independent);
        or when the mutual information (G^2 / 2n) is at most ``threshold`` (TPDA's).
    name : str, optional
        The name a tester records in ``learning["test"]`` (``"mi"`` is recorded as ``"g2"``,
        the one test under two labels); the label by default.
    on_continuous : str, optional
        The test it means on continuous or mixed data (``"g2"`` and ``"mi"``: ``"mi_cg"``,
        the likelihood-ratio test for the data's kind).
    """

    label: str
    data: str
    adjusts_df: bool
    bnlearn: str | None
    statistic: str = "g2"
    decision: str = "p_value"
    name: str = ""
    on_continuous: str | None = None

    @property
    def recorded(self) -> str:
        """The name a tester records (:attr:`name`, else the label)."""
        return self.name or self.label

    @property
    def counts_tables(self) -> bool:
        """Whether it tests a contingency table (the compiled searches run it)."""
        return self.statistic in ("g2", "x2")


#: every CI test, in the order listings and the command line's choices show them
TEST_TABLE: tuple[TestKind, ...] = (
    TestKind("g2", "discrete", True, "mi", on_continuous="mi_cg"),
    TestKind("mi", "discrete", True, "mi", name="g2", on_continuous="mi_cg"),  # bnlearn's g2
    TestKind("x2", "discrete", True, "x2", statistic="x2"),
    TestKind("mi_adf", "discrete", False, "mi-adf", decision="p_value_with_power", name="g2_adf"),
    TestKind("x2_adf", "discrete", False, "x2-adf", statistic="x2", decision="p_value_with_power"),
    TestKind("mi_threshold", "discrete", False, None, decision="threshold"),
    TestKind("fisher_z", "continuous", False, "zf", statistic="fisher_z"),
    TestKind("mi_cg", "any", False, "mi-cg", statistic="mi_cg"),
)
#: every CI test label
TESTS: tuple[str, ...] = tuple(row.label for row in TEST_TABLE)
#: keyword options of :class:`bnfs.CITest` beyond ``test`` and ``alpha``
TEST_OPTIONS = ("threshold", "adjust_df", "min_rows_per_cell")
#: tests whose degrees of freedom subset-conditioning learners adjust unless told not to
LEARNER_ADJUSTS_DF: tuple[str, ...] = tuple(row.label for row in TEST_TABLE if row.adjusts_df)


def test_kind(label: str) -> TestKind:
    """The row of CI test ``label``, or a ValueError listing the tests."""
    for row in TEST_TABLE:
        if row.label == label:
            return row
    raise ValueError(f"test must be one of {list(TESTS)}, got {label!r}")
