"""The command line through its real entry point: knowledge and belief files, help without data libraries, version and near matches, and the compile line in terminals, sessions and notebooks."""

import subprocess
import sys

import pytest

_NODES = ["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp", "NA"]


@pytest.mark.parametrize(
    "text, arcs",
    [
        ("asia,dysp\nxray,smoke\n", [("asia", "dysp"), ("xray", "smoke")]),  # no header
        ("asia,dysp\n", [("asia", "dysp")]),  # one line, no header
        ("from,to\nasia,dysp\n", [("asia", "dysp")]),
        ("to,from\ndysp,asia\n", [("asia", "dysp")]),  # a header in another order
        ("FROM,TO\r\nasia,dysp\r\n", [("asia", "dysp")]),
        ("parent,child\nasia,dysp\n", [("asia", "dysp")]),  # a header of other names
        ("\ufefffrom,to\nasia,dysp\n", [("asia", "dysp")]),  # Notepad's byte-order mark
        ("# forbidden\n\nasia , dysp\n", [("asia", "dysp")]),
        ("asia\tdysp\nNA\tsmoke\n", [("asia", "dysp"), ("NA", "smoke")]),  # tabs; NA a name
        ("NA,asia\n", [("NA", "asia")]),
        ("from,to\n", []),
    ],
)
def test_knowledge_files_keep_their_first_arc(tmp_path, text, arcs):
    from bnfs.cli._inputs import arc_file

    path = tmp_path / "arcs.csv"
    path.write_text(text)
    assert arc_file(path, "whitelist", _NODES) == arcs


@pytest.mark.parametrize(
    "text",
    [
        "asia,dysp,0.7\nNA,smoke,0.7\n",
        "from,to,prob\nasia,dysp,0.7\nNA,smoke,0.7\n",
        "prob,to,from\n0.7,dysp,asia\n0.7,smoke,NA\n",
        "\ufeffa,b,p\nasia,dysp,0.7\nNA,smoke,0.7\n",
    ],
)
def test_belief_files_keep_their_first_belief(tmp_path, text):
    from bnfs.cli._inputs import belief_file

    path = tmp_path / "beliefs.csv"
    path.write_text(text)
    assert belief_file(path, _NODES) == [("asia", "dysp", 0.7), ("NA", "smoke", 0.7)]


@pytest.mark.parametrize(
    "raw, message",
    [
        (
            b"asai,dysp\nxray,smoke\n",
            "the first row of the blacklist file .* \\(asai, dysp\\) is "
            "neither a header \\(from, to\\) nor an arc between nodes of the data: 'asai'",
        ),
        (b"asai,dsyp\n", r"'asai' is not a column \(did you mean 'asia'\?\)"),  # both mistyped
        (b"asia,dysp,xray\n", "needs 2 columns \\(from, to\\); row 1 has 3"),
        (b"from,to\nasia\n", "row 1 has 1"),
        (b"asia,d\xfcsp\n", "the blacklist file .* is not UTF-8 text \\(byte 0xfc at offset 6\\)"),
    ],
)
def test_knowledge_files_that_cannot_be_read_as_arcs_are_refused_by_name(tmp_path, raw, message):
    from bnfs.cli._inputs import arc_file

    path = tmp_path / "arcs.csv"
    path.write_bytes(raw)
    with pytest.raises(ValueError, match=message):
        arc_file(path, "blacklist", _NODES)


def test_a_headerless_whitelist_keeps_its_first_arc_on_the_command_line(
    asia_file, monkeypatch, capsys
):
    import bnfs
    from bnfs import cli

    root, _ = asia_file
    monkeypatch.chdir(root)
    (root / "wl.csv").write_text("asia,dysp\n")
    (root / "bl.csv").write_text("smoke,lung\n")
    args = ["learn", "asia.csv", "--out", "wl.json", "--algorithm", "hill_climbing", "--quiet"]
    assert cli.main(args + ["--whitelist", "wl.csv", "--blacklist", "bl.csv"]) == 0
    learned = bnfs.io.from_json((root / "wl.json").read_text())
    assert learned.has_arc("asia", "dysp")
    assert not learned.has_arc("smoke", "lung")


def test_help_loads_no_data_library():
    """bnfs --help took 0.4 s: bnfs.cli.learn imported pandas (and numpy) at import."""

    code = (
        "import sys\nfrom bnfs.cli import main\ntry:\n    main(['--help'])\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in ('pandas', 'numpy', 'numba', 'scipy') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_version_and_near_matches(asia_file, monkeypatch, capsys):
    import bnfs
    from bnfs import cli

    with pytest.raises(SystemExit) as stop:
        cli.main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.strip() == f"bnfs {bnfs.__version__}"
    root, data = asia_file
    monkeypatch.chdir(root)
    for typed, meant in (("Lung", "lung"), ("SMOKE", "smoke"), ("dyspn", "dysp"), ("xrey", "xray")):
        with pytest.raises(SystemExit):
            cli.main(["blanket", "asia.csv", "--target", typed, "--quiet"])
        assert f"unknown column {typed!r} (did you mean {meant!r}?)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["blanket", "asia.csv", "--target", "zzzz", "--quiet"])
    assert "did you mean" not in capsys.readouterr().err  # nothing close: no guess
    frame = data.to_pandas()
    for call, message in (
        (lambda: bnfs.constraint.iamb_mb(frame, "Lung"), "target 'Lung' is not a variable"),
        (lambda: bnfs.hill_climbing(frame, blacklist=[("smoke", "lunq")]), "node 'lunq'"),
        (lambda: bnfs.CITest(frame)("Tub", "lung"), "'Tub' is not a variable"),
        (lambda: data.check_name("Either"), "target 'Either' is not a column"),
    ):
        with pytest.raises(ValueError, match=message + r".*\(did you mean '\w+'\?\)"):
            call()


@pytest.mark.parametrize("widgets", [False, True])
def test_a_notebook_without_ipywidgets_gets_the_text_bar_without_a_warning(monkeypatch, widgets):
    """tqdm.auto warned "IProgress not found" on the first learn cell of such a notebook."""
    import importlib.util
    import types
    import warnings

    import tqdm.std

    from bnfs import _progress

    class ZMQInteractiveShell:
        pass

    fake = types.ModuleType("IPython")
    fake.get_ipython = lambda: ZMQInteractiveShell()
    monkeypatch.setitem(sys.modules, "IPython", fake)
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: (
            (object() if widgets else None) if name == "ipywidgets" else real_find_spec(name, *a)
        ),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bar = _progress.progress_bar_class()
    assert (bar is not tqdm.std.tqdm) == widgets
    monkeypatch.delitem(sys.modules, "IPython")
    assert _progress.progress_bar_class() is tqdm.std.tqdm  # a plain session


@pytest.mark.parametrize("where", ["terminal", "notebook", "pipe"])
def test_python_sessions_see_the_compile_line_too(monkeypatch, where):
    """Issue 42.16: in Python and notebooks the first learn compiled for 15-20 s with no sign
    of life; the line now starts with the first compile wherever stderr is a terminal or a
    notebook's (no logging set up), and is silent in a pipe."""
    import io
    import time as clock
    import types

    from bnfs import _kernels, _progress

    class Terminal(io.StringIO):
        def isatty(self):
            return where == "terminal"

    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    if where == "notebook":

        class ZMQInteractiveShell:
            pass

        fake = types.ModuleType("IPython")
        fake.get_ipython = lambda: ZMQInteractiveShell()
        shown = []  # a notebook's line is one display output (next test)

        class Handle:
            def update(self, data, raw=False):
                shown.append(data["text/plain"])

        def display(data, raw=False, display_id=False):
            shown.append(data["text/plain"])
            return Handle()

        fake.display = types.SimpleNamespace(display=display)
        monkeypatch.setitem(sys.modules, "IPython", fake)
        monkeypatch.setitem(sys.modules, "IPython.display", fake.display)
    seconds = [7.0]
    monkeypatch.setattr(_kernels, "compiling_for", lambda: seconds[0])
    progress = _progress._CompileProgress()
    progress.busy()  # a kernel starts compiling
    if where == "pipe":
        assert progress.ticker is None and stream.getvalue() == ""
        return
    line = f"{_progress.COMPILING}: 7 s"
    deadline = clock.monotonic() + 20
    while clock.monotonic() < deadline and not (
        "7 s" in stream.getvalue() or (where == "notebook" and shown)
    ):
        clock.sleep(0.05)
    seconds[0] = None
    if where == "notebook":
        assert shown[0] == line and stream.getvalue() == ""
        progress.idle()
        assert shown[-1] == ""  # emptied when compiling ends
    else:
        assert stream.getvalue() == f"\r{line}"
        progress.idle()  # compiling ends: the line goes before the caller prints
        assert stream.getvalue().split("\r")[-1] == "\033[K"
    progress.ticker.join(5)
    assert not progress.ticker.is_alive()  # the ticker ends with the compiling


def test_in_a_notebook_the_compile_line_is_one_output_updated_in_place(monkeypatch):
    """Issue 59, item 14: a saved notebook kept every tick of the counter (written to the
    stream); now one display output is updated and emptied at the end."""
    import io
    import sys
    import types

    from bnfs import _progress

    calls = []

    class Handle:
        def update(self, data, raw=False):
            calls.append(("update", data["text/plain"]))

    def display(data, raw=False, display_id=False):
        calls.append(("display", data["text/plain"]))
        return Handle()

    ipython = types.ModuleType("IPython")
    ipython.display = types.SimpleNamespace(display=display)
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", ipython.display)
    monkeypatch.setattr(_progress, "_in_notebook", lambda: True)
    stream = io.StringIO()  # a notebook's stderr: no terminal
    ticker = _progress.CompileTicker(stream, after=5.0)
    for seconds in (2.0, 6.0, 7.0, 8.2, None):
        ticker.tick(seconds)
    assert stream.getvalue() == ""  # nothing written to the stream the notebook saves
    assert calls == [
        ("display", f"{_progress.COMPILING}: 6 s"),
        ("update", f"{_progress.COMPILING}: 7 s"),
        ("update", f"{_progress.COMPILING}: 8 s"),
        ("update", ""),
    ]
