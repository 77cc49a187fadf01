"""The command line through its real entry point: ``bnfs select``: options of every method, discretizing, reports, time budgets, gaps."""

import xml.etree.ElementTree as ET

import pytest

from cli_support import OPTIONS, _select_code, _svgs, run


def test_select_report_has_the_accuracy_curve(files, drawing_env):
    root, _ = files
    report = root / "select.html"
    result = run(
        "select",
        str(root / "asia.csv"),
        "--target",
        "either",
        "--method",
        "markov_blanket",
        "--algorithm",
        "hill_climbing",
        "--cv",
        "3",
        "--report",
        str(report),
        "--quiet",
        env=drawing_env,
    )
    assert result.returncode == 0, result.stderr
    page = report.read_text()
    assert "http://" not in page.replace("http://www.w3.org", "")  # no metadata URLs
    assert "Accuracy against the number of features" in page and "Learned network" in page
    assert len(_svgs(page)) == 2 and "<code>tub</code>" in page
    assert "<th>learner</th><td>hill_climbing</td>" in page  # the learner is named
    assert "all features" in page  # the accuracy of all features, a line on the curve
    network = ET.tostring(_svgs(page)[1], encoding="unicode")
    assert "node-either" in network  # the class by its own name, not the selector's


def test_select_takes_or_refuses_every_option_for_every_method(asia_file, monkeypatch, capsys):
    """Every learning option given to every selection method is used (exit 0) or refused by
    name (exit 2), never ignored: tiers, roots and leaves (even naming an unknown node, or a
    directory as the tiers file) are refused by every method, the discretizing options by
    the methods that do not discretize."""
    from bnfs import cli
    from bnfs.select import registry

    SELECT_METHODS = registry.names()
    DISCRETIZING = [n for n in SELECT_METHODS if registry.get(n).discretizes]
    LEARNING = " or ".join(n for n in SELECT_METHODS if registry.get(n).learns_network)
    assert LEARNING == "markov_blanket or stable_blanket"

    root, _ = asia_file
    monkeypatch.chdir(root)
    (root / "a_directory").mkdir(exist_ok=True)
    options = {
        **OPTIONS,
        "--tiers": "a_directory",
        "--roots": "no_such_node",
    }
    for method in SELECT_METHODS:
        for flag, value in options.items():
            if (root / "c.json").exists():
                (root / "c.json").unlink()
            extra = {"--threshold": ["--test", "mi_threshold"], "--beliefs": ["--score", "bde"]}
            extra = extra.get(flag, [])
            # the default learner on asia's 7 features is learn's network
            argv = ["select", "asia.csv", "--target", "either", "--method", method]
            code, _, err = _select_code(cli, [*argv, flag, value, *extra, "--quiet"], capsys)
            assert code in (0, 2), (method, flag, err)
            if flag in ("--tiers", "--roots", "--leaves") or (
                flag in ("--discretize", "--bins") and method not in DISCRETIZING
            ):
                assert code == 2 and f"{flag} does not apply to --method {method}" in err, (
                    method,
                    flag,
                    err,
                )
            elif code == 2:
                assert any(
                    f"{f} applies to --method {LEARNING}, not {method}" in err
                    or f"{f} does not apply to learn" in err  # markov_blanket's learner
                    or f"{f} does not apply to hiton_mb" in err  # stable_blanket's
                    or f"{f} does not apply to --method {method}" in err
                    # a local learner's lists name variables, not the arcs given here
                    or f"the {f[2:]} of hiton_mb (a local learner) lists variable names" in err
                    for f in (flag, *extra[:1])
                ), (method, flag, err)
                assert not (flag in ("--discretize", "--bins") and method in DISCRETIZING)


def test_select_discretizes_as_told(continuous_file, monkeypatch, capsys):
    """--discretize and --bins reach every selector that discretizes: its selection is the
    Python selector's with the same discretizer and bins."""
    import bnfs
    from bnfs import cli
    from bnfs.select import registry

    DISCRETIZING = [n for n in registry.names() if registry.get(n).discretizes]

    root, frame = continuous_file
    monkeypatch.chdir(root)
    X, y = frame.drop(columns="y"), frame["y"]
    selectors = {
        "markov_blanket": lambda **o: bnfs.MarkovBlanketSelector(
            "hiton_mb", random_state=0, n_jobs=1, **o
        ),
        "srs": lambda **o: bnfs.SRS(n_jobs=1, **o),
        "stable_blanket": lambda **o: bnfs.StableBlanketSelector(random_state=0, n_jobs=1, **o),
        "slfs": bnfs.SLFS,
        "hybrid": lambda **o: bnfs.HybridSelector(n_jobs=1, **o),
        "fcbf": bnfs.FCBF,
        "cfs": bnfs.CFS,
        "information_gain": bnfs.InformationGain,
    }
    assert set(selectors) == set(DISCRETIZING)
    outputs = set()
    for method, make in selectors.items():
        for flags, params in [
            ([], {}),
            (["--discretize", "interval", "--bins", "5"], {"discretizer": "interval", "n_bins": 5}),
            (["--bins", "2"], {"n_bins": 2}),
        ]:
            argv = ["select", "c.csv", "--target", "y", "--method", method, *flags, "--quiet"]
            code, out, err = _select_code(cli, argv, capsys)
            assert code == 0, (method, flags, err)
            selector = make(**params).fit(X, y)
            expected = [] if selector.empty_ else list(X.columns[selector.get_support()])
            assert out.splitlines()[1].strip() == (", ".join(expected) or "-"), (method, flags)
            outputs.add((method, out.splitlines()[1]))
    # the options change some selection: the comparison above can tell them apart
    assert len(outputs) > len(selectors)


@pytest.mark.parametrize(
    "method", ["markov_blanket", "hsmb", "srs", "slfs", "fcbf", "cfs", "information_gain"]
)
def test_select_report_for_every_method(asia_file, method, monkeypatch, capsys):
    """The report needs no network: local learners and filters write one without a
    picture of a network; SLFS shows its tree."""
    from bnfs import cli

    root, _ = asia_file
    monkeypatch.chdir(root)
    for extra in ([], ["--algorithm", "iamb_mb"]) if method == "markov_blanket" else ([],):
        report = root / f"{method}.html"
        argv = ["select", "asia.csv", "--target", "either", "--method", method, *extra]
        code, out, err = _select_code(cli, [*argv, "--report", str(report), "--quiet"], capsys)
        assert code == 0, (method, extra, err)
        page = report.read_text()
        assert "bnfs select" in page and f"<td>{method}</td>" in page, method
        assert "report written" in out


def test_select_stops_on_time_with_the_set_so_far(asia_file, monkeypatch, capsys):
    """--max-time reaches the local learner: over it, the set found so far and a warning."""
    import warnings

    from bnfs import cli

    root, _ = asia_file
    monkeypatch.chdir(root)
    argv = ["select", "asia.csv", "--target", "either", "--algorithm", "hiton_mb", "--quiet"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, out, err = _select_code(cli, [*argv, "--max-time", "0.000001"], capsys)
    shown = err + " ".join(str(w.message) for w in caught)
    assert code == 124 and "hiton_mb stopped early (max_time reached)" in shown
    assert "kept" in out and "either" in out
    for method, selector in (("fcbf", "FCBF"), ("hsmb", "HSMB"), ("hybrid", "HybridSelector")):
        argv = ["select", "asia.csv", "--target", "either", "--method", method, "--quiet"]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            code, out, err = _select_code(cli, [*argv, "--max-time", "0.000001"], capsys)
        shown = err + " ".join(str(w.message) for w in caught)
        assert code == 124 and f"{selector} stopped early (max_time reached)" in shown, method
        assert "the selection is partial" in err, method
    argv = ["select", "asia.csv", "--target", "either", "--method", "information_gain"]
    code, out, err = _select_code(cli, [*argv, "--max-time", "5"], capsys)
    assert code == 2 and "--max-time does not apply to --method information_gain" in err


def test_cross_validation_folds_match_scikit_learn_and_show_progress():
    import io
    import time as clock

    import numpy as np
    from sklearn.model_selection import StratifiedKFold, cross_validate
    from sklearn.naive_bayes import BernoulliNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    import bnfs
    from bnfs.cli._status import StatusLine
    from bnfs.cli.select import fold_scores

    frame = bnfs.datasets.sample("asia", 400, seed=3)
    X, y = frame.drop(columns="lung"), frame["lung"]
    model = make_pipeline(OneHotEncoder(handle_unknown="ignore"), BernoulliNB())
    folds = StratifiedKFold(4, shuffle=True, random_state=0)
    stream = io.StringIO()
    status = StatusLine(stream, every=0.01)
    status.start()
    ours = fold_scores(model, X, y, folds, status, "all features")
    clock.sleep(0.05)
    status.stop()
    theirs = cross_validate(
        model, X, y, cv=folds, scoring={"accuracy": "accuracy", "f1": "f1_macro"}
    )
    assert np.allclose(ours["test_accuracy"], theirs["test_accuracy"])
    assert np.allclose(ours["test_f1"], theirs["test_f1"])
    written = stream.getvalue()
    assert "cross-validating with all features, fold 4 of 4:" in written
    assert written.endswith("\r\033[K")  # wiped at the end


def test_select_learns_the_blanket_from_gaps_and_cross_validates(tmp_path, monkeypatch, capsys):
    """Issue 45: bnfs select keeps the rows with missing values for the blanket selector (its
    learner runs inside structural EM, as bnfs blanket's), fills them for the --cv
    classifier inside each fold, and names --dropna for the methods that need complete rows
    and for a target with gaps."""
    import numpy as np

    import bnfs
    from bnfs import cli

    frame = bnfs.datasets.sample("asia", 800, seed=3)
    holes = frame.mask(np.random.default_rng(0).random(frame.shape) < 0.1)
    holes["either"] = frame["either"]
    holes.to_csv(tmp_path / "gaps.csv", index=False)
    monkeypatch.chdir(tmp_path)
    argv = ["select", "gaps.csv", "--target", "either", "--cv", "3", "--quiet"]
    code, out, err = _select_code(cli, argv, capsys)
    assert code == 0, err
    lines = out.splitlines()
    X = bnfs.io.read_table(tmp_path / "gaps.csv").drop(columns="either")
    selector = bnfs.MarkovBlanketSelector().fit(X, frame["either"])
    assert selector.missing_["how"] == "structural EM"
    assert lines[1].strip() == ", ".join(selector.selected_)
    assert "missing values: structural EM" in lines[2]
    scored = [line for line in lines if "accuracy" in line and "majority" not in line]
    accuracy = [float(line.split("accuracy")[1].split()[0]) for line in scored]
    assert len(accuracy) == 2 and min(accuracy) > 0.9  # selected and all; the floor below
    assert any(line.strip().startswith("majority") for line in lines)
    code, out, err = _select_code(cli, [*argv[:4], "--method", "fcbf", "--quiet"], capsys)
    assert code == 2 and "--dropna" in err
    holes.loc[0, "either"] = np.nan
    holes.to_csv(tmp_path / "gaps.csv", index=False)
    code, out, err = _select_code(cli, argv, capsys)
    assert code == 2 and "target 'either'" in err and "--dropna" in err


def test_binning_that_was_not_asked_for_is_said(tmp_path):
    """A learner that needs discrete data cuts the continuous columns: one line on stderr
    says so (not only with -v); asked for with --discretize, or with --quiet, it is quiet."""
    from bnfs import datasets

    data = tmp_path / "survey.csv"
    datasets.load_survey().to_csv(data, index=False)
    argv = [
        "learn",
        str(data),
        "--dropna",
        "--algorithm",
        "tpda",
        "--out",
        str(tmp_path / "t.json"),
    ]
    result = run(*argv)
    assert result.returncode == 0, result.stderr
    assert "bnfs: discretizing 6 continuous columns (age, income" in result.stderr
    assert "into 3 quantile bins: tpda needs discrete data here" in result.stderr
    for extra in (["--discretize", "quantile"], ["--quiet"]):
        result = run(*argv, *extra)
        assert result.returncode == 0 and "discretizing" not in result.stderr, extra


@pytest.mark.parametrize("folds", [3, 5])
def test_select_shows_the_majority_class_beside_the_accuracies(
    asia_file, monkeypatch, capsys, folds
):
    """Issue 59, item 17: coil2000's accuracy of 0.940 was the majority-class rate without
    saying so; the floor is printed beside the accuracies and kept in the report; the
    report names the data file, not its absolute path."""
    from bnfs import cli

    root, _ = asia_file
    monkeypatch.chdir(root)
    report = root / f"r{folds}.html"
    argv = ["select", str(root / "asia.csv"), "--target", "either", "--cv", str(folds)]
    code, out, err = _select_code(cli, [*argv, "--report", str(report), "--quiet"], capsys)
    assert code == 0, err
    majority = [line for line in out.splitlines() if line.strip().startswith("majority")]
    import pandas as pd

    either = pd.read_csv(root / "asia.csv")["either"]
    share = either.value_counts(normalize=True).max()
    value = float(majority[0].split("accuracy")[1].split()[0])
    assert abs(value - share) < 0.01 and "most frequent class" in majority[0]
    page = report.read_text()
    assert "majority class" in page and "asia.csv" in page and str(root) not in page
