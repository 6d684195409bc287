"""Connecting to an everruns server: the URL forms libpq takes, credentials from wherever libpq
finds them, and failures as one sentence.

`postgresql://user@host:5432/everruns`, `postgres://…`, a Unix-socket directory as `?host=/path`,
a libpq service as `?service=name`, TLS as `?sslmode=require` (…): the URL goes to psycopg 3,
which hands it to libpq, so a password may come from the URL, `PGPASSWORD` or `~/.pgpass`. The
location Gander shows and remembers is `public_location`'s: never a password or a secret
parameter.
"""

import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any
from urllib.parse import quote, unquote, unquote_plus

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DisconnectionError

from desktop_app.domain.errors import SourceError
from desktop_app.domain.jsontext import loads

STATEMENT_TIMEOUT_MS = 15_000
"""No read may run longer: a busy server makes one sentence, not a frozen list."""
CONNECT_TIMEOUT_S = 5
READ_TIMEOUT_S = 30.0
"""How long a read may wait on the server's answer before its connection is cut: twice the
statement timeout, so a server that is only slow answers (or cancels) first. The statement
timeout is the server's own; this bound is the client's, for a link that stalls with no reset
(packets stop, the socket stays open) and would leave the read waiting forever."""
STALL_PAUSE_S = 30.0
"""After a read was cut or a connection timed out, how long reads fail at once with that
sentence before the server is tried again: a worker (and the histories beside the server) is
not held a connect timeout at each poll of a server that does not answer."""
LINK_BOUNDS = {
    "connect_timeout": CONNECT_TIMEOUT_S,
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "tcp_user_timeout": 30_000,
}
"""libpq's own bounds on a TCP link (ignored on a Unix socket): a connection is made within
5 s, an idle link that stops answering is dropped by the kernel's keepalive probes after
10 + 3 × 5 s, and data sent and never acknowledged fails the connection after 30 s. A URL that
sets one of them keeps its own value."""


def engine_url(location: str) -> URL:
    """The URL for SQLAlchemy, whose parser takes one host: libpq's list of hosts
    (`postgresql://u@h1:5432,[::1]/db`, each tried in turn) is handed over as libpq's own
    `host=h1,::1&port=5432,` parameters; a port that is no number is a sentence."""
    text = _hosts_as_parameters(location.replace("postgres://", "postgresql://", 1), location)
    try:
        url = make_url(text)
    except (ArgumentError, ValueError) as error:
        raise SourceError(f"This is not a PostgreSQL URL: {public_location(location)}.") from error
    return url.set(drivername="postgresql+psycopg")


def _hosts_as_parameters(text: str, location: str) -> str:
    scheme, separator, rest = text.partition("://")
    ends = [at for at in (rest.find("/"), rest.find("?")) if at >= 0]
    authority, tail = rest[: min(ends, default=len(rest))], rest[min(ends, default=len(rest)) :]
    credentials, at, hosts = authority.rpartition("@")
    names, ports = [], []
    for spec in hosts.split(","):
        bracketed = spec.startswith("[") and "]" in spec
        name, colon, port = spec.partition("]:") if bracketed else spec.rpartition(":")
        if not colon:
            name, port = spec, ""
        if port and not port.isdigit():
            # not the port itself: a password with a `/` in it reads as one
            raise SourceError(f"The port in {public_location(location)} is not a number.")
        names.append(unquote(name.strip("[]")))  # `%2Frun%2Fpg`: a socket's folder
        ports.append(port)
    if not separator or len(names) < 2:
        return text
    path, question, query = tail.partition("?")
    listed = f"host={quote(','.join(names), safe='')}&port={quote(','.join(ports), safe='')}"
    return f"{scheme}://{credentials}{at}{path or '/'}?{listed}{'&' + query if question else ''}"


SECRET_PARAMETERS = frozenset(
    {
        "password",
        "sslpassword",
        "oauth_client_secret",
        "scram_client_key",
        "scram_server_key",
        "passfile",
    }
)
"""The libpq parameters a shown or stored URL never carries: those libpq itself marks as
secret (`dispchar` `*` in `PQconndefaults()`: `password`, `sslpassword`,
`oauth_client_secret`), the SCRAM keys (debug options, but as good as the password), and
`passfile`, the file that holds the passwords (libpq finds it again by `PGPASSFILE`)."""


_CREDENTIALS = re.compile(r"(?P<user>[^:/]*)(?::(?P<password>[^@]*))?@")
"""The user part as SQLAlchemy's `make_url` reads it (`sqlalchemy/engine/url.py`): a password
runs to the first `@`, whatever it holds (`/`, `?`), and is hidden so whether or not the URL
can connect."""


def _parts(location: str) -> tuple[str, str, str | None, str, list[str]] | None:
    """A URL split as `engine_url` reads it: the scheme with `://`, the user, the password
    (None without a `:`), the hosts and database, and the query's `key=value` items. Further
    `@`s before the next `/` or `?` are the password's too: SQLAlchemy would take them for the
    host, and the driver's message naming that host would show them."""
    scheme, separator, rest = location.partition("://")
    if not separator:
        return None
    user, password = "", None
    found = _CREDENTIALS.match(rest)
    if found:
        user, password = found["user"], found["password"]
        at = found.end() - 1
        following = rest.find("@", at + 1)
        while following >= 0 and not {"/", "?"} & set(rest[at + 1 : following]):
            password = f"{password or ''}@{rest[at + 1 : following]}"
            at, following = following, rest.find("@", following + 1)
        rest = rest[at + 1 :]
    where, question, query = rest.partition("?")
    items = query.split("&") if question else []
    return f"{scheme}{separator}", user, password, where, items


def _is_secret(item: str) -> bool:
    """Whether a query item names a secret parameter, its key decoded as SQLAlchemy decodes it
    (`parse_qsl`: `%xx` and `+`)."""
    key = unquote_plus(item.partition("=")[0])
    return key.strip().lower() in SECRET_PARAMETERS


def public_location(location: str) -> str:
    """The only form in which a server's URL is shown or stored (the window, settings, the
    search index, `list --json`, every sentence): the URL as given, less the password in its
    user part and every secret parameter in its query, whether or not it could connect."""
    parts = _parts(location)
    if parts is None:
        return location
    scheme, user, _, where, items = parts
    kept = [item for item in items if not _is_secret(item)]
    credentials = f"{user}@" if user else ""
    query = f"?{'&'.join(kept)}" if kept else ""
    return f"{scheme}{credentials}{where}{query}"


class Watch:
    """One connection's read, watched: `since` is when it began waiting on the server (None
    while the reader is busy with rows it has, not waiting). The socket is a duplicate of the
    connection's, so cutting it never touches a descriptor the connection has closed and the
    system has given to another file since."""

    def __init__(self, descriptor: int) -> None:
        self._socket = socket.socket(fileno=os.dup(descriptor))
        self.since: float | None = time.monotonic()
        self.cut = False

    def pause(self) -> None:
        self.since = None

    def resume(self) -> None:
        self.since = time.monotonic()

    def cut_now(self) -> None:
        """Shut the socket both ways: the read waiting on it wakes with the end of the stream
        (the driver raises at once), whatever the link does."""
        self.cut = True
        with suppress(OSError):
            self._socket.shutdown(socket.SHUT_RDWR)

    def release(self) -> None:
        self._socket.close()


class ReadDeadline:
    """Cuts the connection of a read that has waited `seconds` on the server: psycopg has no
    client-side read timeout, and a link that stalls without a reset leaves it waiting
    forever. One daemon thread per server looks at the reads in flight (waking only while
    there are any); `close` cuts every read at once, so closing a window never waits on a
    worker stuck in a read."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._changed = threading.Condition()
        self._watches: set[Watch] = set()
        self._thread: threading.Thread | None = None
        self._closed = False

    @contextmanager
    def watching(self, dbapi_connection: Any) -> Iterator[Watch]:
        """The reads on `dbapi_connection` inside the block, watched."""
        watch = Watch(dbapi_connection.fileno())
        with self._changed:
            if self._closed:
                watch.cut_now()
            self._watches.add(watch)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._watch, name="gander-everruns-deadline", daemon=True
                )
                self._thread.start()
            self._changed.notify()
        try:
            yield watch
        finally:
            with self._changed:
                self._watches.discard(watch)
            watch.release()

    def _watch(self) -> None:
        with self._changed:
            while not self._closed:
                now, wait = time.monotonic(), None
                for watch in self._watches:
                    since = watch.since
                    left = self.seconds if since is None else since + self.seconds - now
                    if left <= 0 and not watch.cut:
                        watch.cut_now()
                    elif left > 0:
                        wait = left if wait is None else min(wait, left)
                self._changed.wait(wait)

    def close(self) -> None:
        """Cut every read in flight and stop watching (a read that starts later is cut as it
        starts)."""
        with self._changed:
            self._closed = True
            for watch in self._watches:
                watch.cut_now()
            self._changed.notify()


def make_engine(location: str, statement_timeout_ms: int, deadline: ReadDeadline) -> Engine:
    """A small pool of read-only connections (`default_transaction_read_only`, a statement
    timeout, libpq's `LINK_BOUNDS`); a connection the server dropped is noticed before use and
    replaced, by a ping `deadline` bounds (SQLAlchemy's own pre-ping would wait forever)."""
    options = f"-c default_transaction_read_only=on -c statement_timeout={statement_timeout_ms}"
    try:
        import psycopg  # noqa: PLC0415 - only a server history needs the driver
    except ImportError as error:
        raise SourceError(
            "Opening an everruns database needs psycopg 3: pip install 'psycopg[binary]'."
        ) from error
    url = engine_url(location)
    bounds = {key: value for key, value in LINK_BOUNDS.items() if key not in url.query}
    engine = create_engine(
        url,
        json_deserializer=loads,  # JSONB as read from files: a 5,000-digit number costs its field
        pool_size=2,
        max_overflow=2,
        connect_args={"options": options, "application_name": "gander", **bounds},
    )

    @event.listens_for(engine, "connect")
    def fresh(dbapi_connection: Any, record: Any) -> None:
        del dbapi_connection
        record.info["fresh"] = True

    @event.listens_for(engine, "handle_error")
    def close_cut(context: Any) -> None:
        """A read cut in its stream (the search index's server-side cursor) leaves psycopg's
        cursor open: SQLAlchemy drops a lost connection without closing it, and psycopg would
        warn when it is collected. The connection is closed first, so the cursor closes
        without a word to the server."""
        cursor = getattr(context.execution_context, "cursor", None)
        if context.is_disconnect and cursor is not None:
            with suppress(psycopg.Error):
                cursor.connection.close()
                cursor.close()

    @event.listens_for(engine, "checkout")
    def ping(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        """A pooled connection answers before it is used; one that does not (dropped by the
        server, or silent past the deadline) is replaced by a new one."""
        del proxy
        if record.info.pop("fresh", False):
            return
        try:
            with deadline.watching(dbapi_connection):
                dbapi_connection.execute("SELECT 1")
        except (psycopg.Error, OSError) as error:
            raise DisconnectionError(str(error)) from error

    return engine


def secrets_of(location: str) -> tuple[str, ...]:
    """Every secret a URL carries (its password, each secret parameter's value), as written
    and decoded, to scrub from the driver's messages (the longest first, so no part of one is
    left); of a password holding `@`, also each part after one, which SQLAlchemy takes for the
    host and the driver names in its message."""
    parts = _parts(location)
    if parts is None:
        return ()
    _, _, password, _, items = parts
    found = [password, *password.split("@")[1:]] if password else []
    found += [item.partition("=")[2] for item in items if _is_secret(item)]
    forms = {form for v in found if v for form in (v, unquote(v), unquote_plus(v))}
    return tuple(sorted(forms, key=len, reverse=True))


def sentence(error: BaseException, where: str, secrets: tuple[str, ...] = ()) -> str:
    """One sentence for a database failure, never with a password in it (the driver's own
    message is scrubbed of any the URL held)."""
    original = getattr(error, "orig", None) or error
    detail = " ".join(str(original).split()) or type(original).__name__
    for secret in secrets:
        detail = detail.replace(secret, "***")
    lowered = detail.lower()
    if "password authentication failed" in lowered or "no password supplied" in lowered:
        return f"The everruns database at {where} refused the login: check the user and password."
    if "statement timeout" in lowered or "canceling statement" in lowered:
        return f"The everruns database at {where} took too long to answer; try again."
    if "connection" in lowered or "server" in lowered or "timeout" in lowered:
        return f"The everruns database at {where} cannot be reached ({detail[:200]})."
    return f"The everruns database at {where} could not be read ({detail[:200]})."
