"""Small helpers the constraint-based learners share: the target's index, conditioning
subsets, black- and whitelists."""

from __future__ import annotations

import functools
import inspect
import itertools

from bnfs._budget import Budget
from bnfs._validate import arc_list, check_int, cycle_text, directed_cycle, near_match
from bnfs.graphs.local import LocalResult
from bnfs.stats.citests import Separation, make_test, rows_report


def target_index(tester, target) -> int:
    """Index of ``target`` in the tester's variables, or a ValueError naming it."""
    try:
        return tester.index(target)
    except ValueError:
        raise ValueError(
            f"target {target!r} is not a variable of the data"
            + near_match(target, list(tester.names))
        ) from None


def subsets(pool, max_size):
    """Subsets of ``pool`` by increasing size (at most ``max_size``), each in index order."""
    pool = sorted(pool)
    top = len(pool) if max_size is None else min(max_size, len(pool))
    for size in range(top + 1):
        yield from itertools.combinations(pool, size)


def cond_size(max_cond_size):
    """The validated ``max_cond_size`` argument (None: no limit)."""
    return check_int(max_cond_size, "max_cond_size", 0, allow_none=True)


class Knowledge:
    """Black- and whitelists of a constraint-based learner, on the tester's indices.

    A pair blacklisted both ways is ``forbidden``: never adjacent, never tested. A pair with
    a whitelisted arc is ``required``: adjacent without a test, never removed. Orientation
    follows the lists: a whitelisted arc (one way) is an arc; an adjacency blacklisted one
    way points the other way (see :func:`bnfs.constraint._orient.orient`).
    """

    def __init__(self, tester, blacklist=None, whitelist=None):
        names = tester.names
        black = {
            (tester.index(u), tester.index(v)) for u, v in arc_list(blacklist, "blacklist", names)
        }
        white = {
            (tester.index(u), tester.index(v)) for u, v in arc_list(whitelist, "whitelist", names)
        }
        both = black & white
        if both:
            u, v = min(both)
            raise ValueError(f"arc {names[u]!r} -> {names[v]!r} is both black- and whitelisted")
        self.forbidden = {frozenset(a) for a in black if a[::-1] in black}
        self.required = {frozenset(a) for a in white}
        clash = self.forbidden & self.required
        if clash:
            u, v = sorted(min(clash, key=sorted))
            raise ValueError(
                f"{names[u]!r} and {names[v]!r} are blacklisted both ways and whitelisted"
            )
        cycle = directed_cycle(white)
        if cycle is not None:
            raise ValueError(
                f"the whitelist forms a directed cycle: {cycle_text(names[i] for i in cycle)}"
            )
        #: arcs the lists fix: whitelisted one way, or the reverse of a one-way blacklist
        self.arcs = {a for a in white if a[::-1] not in white}
        self.arcs |= {
            a[::-1] for a in black if frozenset(a) not in self.forbidden and a[::-1] not in black
        }
        self.lists = {
            "blacklist": sorted((names[u], names[v]) for u, v in black),
            "whitelist": sorted((names[u], names[v]) for u, v in white),
        }

    def testable(self, x: int, y: int) -> bool:
        """Whether the data decide if x and y are adjacent."""
        pair = frozenset((x, y))
        return pair not in self.forbidden and pair not in self.required


def local_result(names, tester, target, n_tests: int, options: dict | None = None):
    """A local learner's :class:`~bnfs.graphs.local.LocalResult`: ``names`` with the
    provenance of ``tester`` (test, alpha, rows used) and the learner's ``options``."""
    return LocalResult(
        names,
        {
            "target": target,
            "test": tester.test,
            "alpha": tester.alpha,
            "adjust_df": getattr(tester, "adjust_df", False),
            "arguments": dict(options or {}),
            "n_tests": n_tests,
            **rows_report(tester),
        },
    )


class NodeLists:
    """A tester as a local learner sees it under node lists, bnlearn's ``learn.mb`` and
    ``learn.nbr`` semantics: blacklisted variables are dropped (never candidates, never
    conditioned on, for the target and for every node a symmetry check or spouse search
    visits); whitelisted ones are in the target's set from the start and never removed, and
    the target is in theirs, so symmetry checks keep them.

    Learners search on the view's indices (``names`` maps them back); ``required(v)`` is
    what the set of ``v`` must keep. Without lists the view is the tester itself.
    """

    def __init__(self, tester, target=None, blacklist=None, whitelist=None):
        self.tester = tester
        self.alpha = tester.alpha
        #: the learner's time limit, which the searches check between batches of tests
        self.budget = Budget(None)
        black = _node_list(tester, blacklist, "blacklist", target)
        white = _node_list(tester, whitelist, "whitelist", target)
        both = set(black) & set(white)
        if both:
            raise ValueError(f"{tester.names[min(both)]!r} is both black- and whitelisted")
        self.lists = {
            "blacklist": [tester.names[v] for v in black],
            "whitelist": [tester.names[v] for v in white],
        }
        if black:
            kept = [v for v in range(len(tester.names)) if v not in set(black)]
            self._global = kept
            self.names = tuple(tester.names[v] for v in kept)
        else:
            self._global = None
            self.names = tester.names
            self.test_indices = tester.test_indices
            self.rows_per_cell = tester.rows_per_cell
            self.tests_given = tester.tests_given
        local = {g: i for i, g in enumerate(self._global or range(len(tester.names)))}
        self.target = None if target is None else local[tester.index(target)]
        self._required: dict[int, frozenset[int]] = {}
        if white:
            self._required[self.target] = frozenset(local[v] for v in white)
            for v in white:
                self._required[local[v]] = frozenset((self.target,))

    def test_indices(self, x: int, y: int, z=()):
        g = self._global
        return self.tester.test_indices(g[x], g[y], [g[v] for v in z])

    def rows_per_cell(self, x: int, y: int, z=()) -> float:
        g = self._global
        return self.tester.rows_per_cell(g[x], g[y], [g[v] for v in z])

    def tests_given(self, t: int, candidates, z=()) -> list:
        g = self._global
        return self.tester.tests_given(g[t], [g[x] for x in candidates], [g[v] for v in z])

    def separations(self, t: int, candidates, pool, max_size=None, **options):
        """The tester's :meth:`~bnfs.stats.citests.CITest.separations` on the view's
        indices, stopping where the view's budget is spent."""
        g = self._global
        if g is None:
            return self.tester.separations(
                t, candidates, pool, max_size, budget=self.budget, **options
            )
        found, pool = self.tester.separations(
            g[t],
            [g[x] for x in candidates],
            [g[v] for v in pool],
            max_size,
            budget=self.budget,
            **options,
        )
        local = {v: i for i, v in enumerate(g)}
        return [
            Separation(None if f.subset is None else tuple(local[v] for v in f.subset), f.weakest)
            for f in found
        ], [local[v] for v in pool]

    def required(self, v: int) -> frozenset[int]:
        """The variables the set of ``v`` starts with and never loses."""
        return self._required.get(v, frozenset())


def _node_list(tester, nodes, what: str, target) -> list[int]:
    """Indices of a local learner's black- or whitelist: variable names, one name or None."""
    if nodes is None:
        return []
    if isinstance(nodes, str):
        nodes = [nodes]
    try:
        nodes = list(nodes)
    except TypeError:
        raise TypeError(f"{what} must be a list of variable names, got {nodes!r}") from None
    found = []
    for v in nodes:
        if isinstance(v, tuple) and len(v) == 2:
            raise TypeError(
                f"the {what} of a local learner lists variable names (as bnlearn's "
                f"learn.mb and learn.nbr), not arcs; got {v!r}"
            )
        try:
            index = tester.index(v)
        except ValueError:
            raise ValueError(
                f"{what} entry {v!r} is not a variable of the data"
                + near_match(v, list(tester.names))
            ) from None
        if v == target:
            raise ValueError(f"the target {target!r} cannot be in its own {what}")
        if index not in found:
            found.append(index)
    return sorted(found)


def local_learner(*, adjusts_df: bool):
    """The setup of the local learners (Grow-Shrink, IAMB, HITON, MMPC, PCMB), one place:
    the decorated learner checks its own options and returns its search ``fn(view,
    target)`` (or ``(fn, record)``, ``record`` added to ``learning``); this builds the
    tester from its ``data``, ``test``, ``alpha`` and ``**test_options``, the node lists
    from ``blacklist`` and ``whitelist``, the budget from ``max_time``, runs the search and
    wraps the set it finds with its provenance (the tests run, the node lists, a stop).
    ``adjusts_df`` declares whether its tests adjust their degrees of freedom by default
    (the learners that condition on small subsets; not those that condition on whole
    blankets, see :func:`bnfs.stats.citests.make_test`). The learner's signature stays its
    own, for ``help()``, the docs and the registry."""

    def decorate(learner):
        signature = inspect.signature(learner)

        @functools.wraps(learner)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            made = learner(*bound.args, **bound.kwargs)
            search, record = made if isinstance(made, tuple) else (made, {})
            result = _run_local(learner.__name__, search, bound.arguments, adjusts_df)
            result.learning.update(record)
            return result

        wrapper.adjusts_df = adjusts_df
        return wrapper

    return decorate


def _run_local(algorithm: str, fn, arguments: dict, adjusts_df: bool) -> LocalResult:
    """Run local learner ``algorithm``'s search ``fn(view, target)`` on a tester built from
    its ``arguments`` and wrap the set it finds with its provenance."""
    test_options = arguments.get("test_options", {})
    max_time, target = arguments["max_time"], arguments["target"]
    budget = Budget(max_time)
    tester = make_test(
        arguments["data"],
        arguments["test"],
        arguments["alpha"],
        adjust_by_default=adjusts_df,
        **test_options,
    )
    target_index(tester, target)
    view = NodeLists(tester, target, arguments["blacklist"], arguments["whitelist"])
    view.budget = budget
    before = tester.n_tests
    found = tester.in_column_order(view.names[i] for i in fn(view, view.target))
    result = local_result(
        found,
        tester,
        target,
        tester.n_tests - before,
        {**view.lists, **({} if max_time is None else {"max_time": max_time}), **test_options},
    )
    if budget.reason is not None:
        result.learning["stopped_early"] = budget.reason
        budget.warn(algorithm, "the set")
    return result
