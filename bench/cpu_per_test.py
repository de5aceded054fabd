"""A pytest plugin: the machine's CPU seconds (every process: the browser, the servers, pytest) and the wall seconds of
each test, read from /proc/stat before and after it, written as JSON. Meaningful with one worker on a quiet machine:

    PYTHONPATH=bench CPU_PER_TEST=/tmp/cpu.json .venv/bin/python -m pytest -p cpu_per_test -p no:xdist tests/e2e
"""

import json
import os
import time

_OUT: dict[str, tuple[float, float]] = {}
_START: dict[str, tuple[float, float]] = {}


def _cpu() -> float:
    user, nice, system = open("/proc/stat").readline().split()[1:4]
    return (int(user) + int(nice) + int(system)) / os.sysconf("SC_CLK_TCK")


def pytest_runtest_logstart(nodeid, location):
    _START[nodeid] = (_cpu(), time.monotonic())


def pytest_runtest_logfinish(nodeid, location):
    cpu, wall = _START.pop(nodeid)
    _OUT[nodeid] = (_cpu() - cpu, time.monotonic() - wall)


def pytest_sessionfinish(session):
    with open(os.environ.get("CPU_PER_TEST", "cpu_per_test.json"), "w") as out:
        json.dump(_OUT, out, indent=0)
