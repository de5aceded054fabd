import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_terminal_summary(terminalreporter):
    from pathlib import Path

    shots = Path(__file__).resolve().parents[1] / "test-artifacts" / "screenshots"
    if shots.is_dir() and any(shots.iterdir()):
        terminalreporter.write_line(f"screenshots of every stage: {shots}")
