"""``max_time`` bounds the learning, not the first-use compiling of the kernels."""

import time

import pytest

import bnfs._kernels._compile as compile_
from bnfs._budget import Budget
from bnfs.em.rounds import _left
from bnfs.search.neighbourhood import _TestBudget


class _Clocks:
    """A wall clock and a compile clock that the test moves by hand."""

    def __init__(self, monkeypatch):
        self.wall, self.compiling = 1000.0, 0.0
        monkeypatch.setattr(time, "perf_counter", lambda: self.wall)
        monkeypatch.setattr(compile_, "compile_seconds", lambda: self.compiling)

    def run(self, seconds: float, compiling: float = 0.0) -> None:
        self.wall += seconds
        self.compiling += compiling


@pytest.mark.parametrize("max_time, compiled", [(10.0, 25.0), (0.5, 120.0), (3.0, 3.0)])
def test_compiling_is_not_spent_from_the_budget(monkeypatch, max_time, compiled):
    clocks = _Clocks(monkeypatch)
    clocks.compiling = 7.0  # compiled before the budget began: not its business
    budget = Budget(max_time)
    clocks.run(compiled + max_time / 2, compiling=compiled)
    assert not budget.spent()
    assert budget.left() == pytest.approx(max_time / 2)
    clocks.run(max_time)
    assert budget.spent() and budget.reason == "max_time reached"
    assert budget.left() == 0.0


def test_without_compiling_the_budget_is_wall_time(monkeypatch):
    clocks = _Clocks(monkeypatch)
    budget = Budget(4.0)
    clocks.run(3.9)
    assert budget.left() == pytest.approx(0.1)
    clocks.run(0.2)
    assert budget.spent()
    assert Budget(None).left() is None and not Budget(None).spent()


def test_budgets_handed_down_leave_compiling_out(monkeypatch):
    clocks = _Clocks(monkeypatch)

    class Tester:
        n_tests = 0

    tests = _TestBudget(6.0, Tester(), most=100)
    em = Budget(6.0)
    clocks.run(50.0, compiling=48.0)
    assert tests.left() == pytest.approx(4.0)
    assert _left({"max_time": em})["max_time"] == pytest.approx(4.0)
    Tester.n_tests = 101  # over the tests' bound: spent, whatever the seconds left
    assert tests.spent() and tests.left() == pytest.approx(4.0)
