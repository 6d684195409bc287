"""The stalling proxy (tests/fixtures/stalling_proxy.py) forwards whatever descriptor numbers its
sockets get: late in a whole run they were over 1,023, where select() refuses them, and every
test through the proxy failed."""

import os
import socket
import threading
from pathlib import Path

from tests.fixtures.stalling_proxy import StallingProxy


def _echo_server(folder: Path) -> socket.socket:
    """A Unix socket where the proxy expects PostgreSQL's, answering each read with itself."""
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(folder / ".s.PGSQL.5432"))
    listener.listen()
    listener.settimeout(10)

    def serve() -> None:
        try:
            connection, _ = listener.accept()
        except OSError:
            return
        with connection:
            connection.settimeout(10)
            while data := connection.recv(65536):
                connection.sendall(data)

    threading.Thread(target=serve, daemon=True).start()
    return listener


def test_the_proxy_forwards_on_descriptors_numbered_over_1023(tmp_path: Path) -> None:
    spare = os.open(os.devnull, os.O_RDONLY)
    filler = [os.dup(spare) for _ in range(1_100)]  # the proxy's sockets are numbered above
    listener = _echo_server(tmp_path)
    try:
        with (
            StallingProxy(str(tmp_path)) as proxy,
            socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as client,
        ):
            assert client.fileno() > 1_023
            client.sendall(b"ping")
            assert client.recv(4) == b"ping"
    finally:
        listener.close()
        for fd in (*filler, spare):
            os.close(fd)
