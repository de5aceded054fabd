import pytest

from mha.ui import budget


@pytest.fixture(autouse=True)
def no_seats_held():
    """Each test starts with no large view seated: AppTest's sessions never disconnect, so the seats they take
    would otherwise stay taken for the next tests of this worker."""
    budget._seats.clear()
    yield
    budget._seats.clear()
