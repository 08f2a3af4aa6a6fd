"""quiet_native_output: writes to file descriptors 1 and 2 vanish, and only inside the block.

Checked in a child process, since pytest's own capture sits on those descriptors.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import momentbound

SRC = Path(momentbound.__file__).resolve().parents[1]

CHILD = textwrap.dedent(
    """
    import ctypes, os, sys, threading
    from momentbound.quiet import quiet_native_output

    libc = ctypes.CDLL(None)
    print("before", flush=False)           # still in Python's buffer when the block starts
    with quiet_native_output():
        os.write(1, b"fd1-inside\\n")
        os.write(2, b"fd2-inside\\n")
        libc.printf(b"c-buffered-inside\\n")  # C stdio buffer: must not leak after the block
        print("python-inside")
        with quiet_native_output():           # nested: the outer block still silences
            os.write(1, b"nested\\n")
        os.write(1, b"after-nested\\n")
    print("after")
    os.write(2, b"stderr-after\\n")
    libc.printf(b"c-after\\n")
    libc.fflush(None)
    import highspy
    with quiet_native_output():
        highspy.Highs()
    print("done")
    """
)


def test_silences_descriptors_only_inside_the_block():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH", "")) if p)
    res = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == ["before", "after", "c-after", "done"]
    assert res.stderr.splitlines() == ["stderr-after"]


def test_unguarded_highs_prints_a_banner():
    """The witness that the guard is needed: building Highs() without it writes to stdout."""
    code = "import highspy; highspy.Highs()"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "HiGHS" in res.stdout
