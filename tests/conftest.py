import functools
import os
import sys

# The suite starts some twenty Python processes (the workers, each browser test's server, the start-up checks). Where
# the environment forbids the bytecode cache (PYTHONDONTWRITEBYTECODE=1, as on our machines), each of them compiled
# streamlit, numpy, pandas, plotly and the app from source again: ~1.7 CPU-s a server, ~6 a worker's collection. The
# run allows the cache, for itself and the processes it starts (in __pycache__ folders, which git ignores).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

import pytest  # noqa: E402 - after the cache is allowed
from hypothesis import HealthCheck, settings  # noqa: E402
from streamlit.components.v2 import manifest_scanner  # noqa: E402

pytest_plugins = ["tests.redis_server"]  # the redis_server fixture, for the classroom's Redis tests

settings.register_profile(
    "default", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(autouse=True, scope="session")
def components_scanned_once():
    """Each new AppTest scans every installed distribution's metadata for Streamlit components (~0.1 s with the
    dev requirements' ~700 files, most of an AppTest run of a light page); the packages do not change during the
    run, so the scan is made once and its result reused. The app's own server scans once at start, as before."""
    scan = manifest_scanner.scan_component_manifests
    manifest_scanner.scan_component_manifests = functools.cache(scan)
    yield
    manifest_scanner.scan_component_manifests = scan


def pytest_terminal_summary(terminalreporter):
    from pathlib import Path

    shots = Path(__file__).resolve().parents[1] / "test-artifacts" / "screenshots"
    if os.environ.get("MHA_SHOTS") == "1" and shots.is_dir() and any(shots.iterdir()):
        terminalreporter.write_line(f"screenshots of every stage: {shots}")


# The files of the longest single tests (30-60 s each in a full run), longest first; the memory and classroom tests
# mostly wait (a janitor's passes, a room's reruns): early, the other workers' tests fill that time
LONGEST_FIRST = ("test_classroom_e2e", "test_state_e2e", "test_memory_e2e", "test_downloads_e2e",
                 "test_lab_present_e2e", "test_screens_e2e")
SLOW_OTHERS = ("test_memory", "test_strings_render", "test_gpt2")  # 15-20 s tests: right after the browser's


def pytest_collection_modifyitems(items):
    """Browser tests first, the longest of them first, then the slowest other tests: with several workers (`-n 3
    --dist worksteal`: a worker that runs out takes tests from the others' share) the run then ends on short tests,
    not on a long one."""
    def rank(item) -> int:
        name = item.path.stem
        if name in LONGEST_FIRST:
            return LONGEST_FIRST.index(name)
        if item.get_closest_marker("e2e"):
            return len(LONGEST_FIRST)
        return len(LONGEST_FIRST) + (1 if name in SLOW_OTHERS else 2)

    items.sort(key=rank)
