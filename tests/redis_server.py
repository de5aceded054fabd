"""A real `redis-server` for the classroom's Redis tests, on a free loopback port in a folder of the test's own.

Debian's `redis-server` (`.ci/run` installs it). Where it is missing the tests that need it are skipped, saying so.
It writes every change to its append-only file, so a restart keeps the rooms, as deploy/'s Redis does; `wipe` empties
it, as a Redis without persistence comes back."""

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

BINARY = shutil.which("redis-server")
needs_redis = pytest.mark.skipif(BINARY is None, reason="redis-server is not installed (apt-get install redis-server)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    def __init__(self, folder: Path):
        self.folder, self.port, self.proc = folder, _free_port(), None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [BINARY, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder), "--save", "",
             "--appendonly", "yes", "--appendfsync", "always", "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not answer on port {self.port} within 20 s")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=20)
            self.proc = None

    def restart(self, wipe: bool = False) -> None:
        self.stop()
        if wipe:
            shutil.rmtree(self.folder / "appendonlydir", ignore_errors=True)
        self.start()


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.stop()
