"""The build compiles bnfs's kernels into the package (``bnfs warmup --into``), so that a
fresh install loads machine code on its first call instead of compiling for minutes.

Everything else about the build is in ``pyproject.toml``. The compile runs in the build's
environment (``[build-system] requires`` holds the runtime dependencies for it), a process
per core, on the files the build is about to package; the entries are named by the
sources' content and keyed to numba, llvmlite, numpy, Python and the CPU, so an install
whose versions or CPU differ compiles on first use as before (one line says why), with the
same answers. ``BNFS_PORTABLE_KERNELS=1`` builds them for the platform's generic CPU (a
wheel for other machines: they load on any CPU of the platform). ``BNFS_BUILD_KERNELS=0`` skips it (a quick build, kernels compiled on first
use); an editable install never runs it (its sources change under it).
"""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class build_py_with_kernels(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False) or os.environ.get("BNFS_BUILD_KERNELS") == "0":
            return
        build = Path(self.build_lib).resolve()
        into = build / "bnfs" / "_kernels" / "_compiled"
        shutil.rmtree(into, ignore_errors=True)  # a build folder kept from an earlier build
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(build), os.environ.get("PYTHONPATH", "")]),
        }
        env.pop("NUMBA_DISABLE_JIT", None)
        started = time.perf_counter()
        portable = ["--portable"] if os.environ.get("BNFS_PORTABLE_KERNELS") == "1" else []
        done = subprocess.run(
            [sys.executable, "-m", "bnfs.cli", "warmup", "--into", str(into), "--quiet", *portable],
            env=env,
            cwd=str(build),
        )
        took = time.perf_counter() - started
        if done.returncode != 0:  # the package works without them: compiled on first use
            print(
                f"bnfs: compiling the kernels into the package failed ({took:.0f} s); "
                "they compile on first use instead",
                file=sys.stderr,
            )
        else:
            print(f"bnfs: kernels compiled into the package in {took:.0f} s", file=sys.stderr)


setup(cmdclass={"build_py": build_py_with_kernels})
