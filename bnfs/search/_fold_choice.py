"""What :func:`bnfs.learn` keeps beside its candidates' fold runs: their checkpoint (read back
and checked), the summaries of each candidate's folds and the choice among them."""

from __future__ import annotations

import math

import numpy as np

from bnfs._checkpoint import Checkpoint, fingerprint

__all__ = ["saved_folds", "damaged", "fold_store", "summaries", "choice"]


def saved_folds(store: Checkpoint, keys: set[str], data) -> dict[str, list]:
    """The fold runs a checkpoint holds, each checked against what such a run can give:
    (log-likelihood per row, arcs, seconds), all finite; arcs a whole number a DAG on the
    data's columns can have; seconds not negative; on discrete data a log-likelihood that
    is a log-probability (at most 0). Anything else means the file was changed."""
    saved = store.load() or {}
    folds = saved.get("folds", {})
    most_arcs = data.n_vars * (data.n_vars - 1) // 2
    refused = lambda why: damaged(store, why)
    try:
        found = {
            key: [float(value[0]), float(value[1]), float(value[2])]
            for key, value in folds.items()
            if key in keys
        }
    except (AttributeError, TypeError, ValueError, IndexError, KeyError) as error:
        raise refused(str(error)) from None
    for key, (value, arcs, seconds) in found.items():
        if not all(map(math.isfinite, (value, arcs, seconds))):
            raise refused(f"fold run {key} holds a value that is not finite")
        if not (arcs == int(arcs) and 0 <= arcs <= most_arcs) or seconds < 0:
            raise refused(f"fold run {key}: {arcs!r} arcs in {seconds!r} seconds")
        if data.is_discrete and value > 1e-9:
            raise refused(f"fold run {key}: a log-probability of {value!r} per row")
    return found


def damaged(store: Checkpoint, why: str) -> ValueError:
    """The error that refuses a checkpoint whose saved fold runs were changed."""
    return ValueError(
        f"checkpoint {str(store.path)!r} is damaged ({why}); delete it to start afresh"
    )


def fold_store(checkpoint, data, candidates, folds, seed, iss, options) -> Checkpoint | None:
    """The checkpoint of ``learn``'s fold runs, keyed by everything they depend on."""
    if checkpoint is None:
        return None
    return Checkpoint(
        checkpoint,
        "learn",
        fingerprint(
            data,
            candidates=candidates,
            folds=folds,
            seed=seed,
            iss=iss,
            options={
                **options,
                "blacklist": sorted(options["blacklist"]),
                "whitelist": sorted(options["whitelist"]),
            },
        ),
    )


def summaries(candidates, found: dict, folds: int) -> dict:
    """Per candidate with every fold run: its held-out log-likelihoods, their mean and
    standard error, mean arcs and seconds; refused when a mean is not finite."""
    summary = {}
    for c in candidates:
        runs = [found.get(f"{c}/{k}") for k in range(folds)]
        if any(r is None for r in runs):
            continue
        values = [r[0] for r in runs]
        summary[c] = {
            "log_likelihood": values,
            "mean": float(np.mean(values)),
            "se": float(np.std(values, ddof=1) / math.sqrt(folds)),
            "arcs": float(np.mean([r[1] for r in runs])),
            "seconds": float(sum(r[2] for r in runs)),
        }
    bad = [c for c in summary if not math.isfinite(summary[c]["mean"])]
    if bad:
        raise ValueError(
            f"candidate {bad[0]!r} gave a held-out log-likelihood that is not finite "
            f"({summary[bad[0]]['log_likelihood']}); the folds cannot be compared"
        )
    return summary


def choice(summary: dict, candidates, one_se: bool) -> tuple[str, str, str]:
    """(best, chosen, why): the highest mean, or with ``one_se`` the candidate with the
    fewest arcs within one standard error of it."""
    best = max(summary, key=lambda c: summary[c]["mean"])
    chosen, reason = best, "highest mean held-out log-likelihood"
    if one_se:
        floor = summary[best]["mean"] - summary[best]["se"]
        close = [c for c in summary if summary[c]["mean"] >= floor]
        simplest = min(close, key=lambda c: (summary[c]["arcs"], candidates.index(c)))
        if simplest != best:
            chosen = simplest
            reason = (
                f"fewest arcs within one standard error of the best ({best}: "
                f"{summary[best]['mean']:.4f} +/- {summary[best]['se']:.4f})"
            )
    return best, chosen, reason
