import pytest

from mha.ui import budget


@pytest.fixture(autouse=True)
def no_seats_held():
    """Each test starts with no large view seated: AppTest's sessions never disconnect, so the seats they take
    would otherwise stay taken for the next tests of this worker."""
    budget._seats.clear()
    yield
    budget._seats.clear()


@pytest.fixture(scope="session")
def checkpoint_root(tmp_path_factory):
    """A folder holding the two small checkpoints of tests/checkpoints.py (tiny-gpt2, trained-gpt2), for MHA_MODELS."""
    from tests.checkpoints import build

    return build(tmp_path_factory.mktemp("checkpoints"))


@pytest.fixture
def offered(checkpoint_root, monkeypatch):
    """This test's server offers the two small checkpoints (MHA_MODELS)."""
    monkeypatch.setenv("MHA_MODELS", str(checkpoint_root))
    return checkpoint_root
