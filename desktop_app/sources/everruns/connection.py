"""Connecting to an everruns server: the URL forms libpq takes, credentials from wherever libpq
finds them, and failures as one sentence.

`postgresql://user@host:5432/everruns`, `postgres://…`, a Unix-socket directory as `?host=/path`,
a libpq service as `?service=name`, TLS as `?sslmode=require` (…): the URL goes to psycopg 3,
which hands it to libpq, so a password may come from the URL, `PGPASSWORD` or `~/.pgpass`. The
location Gander shows and remembers never carries the password.
"""

from urllib.parse import unquote

from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from desktop_app.domain.errors import SourceError

STATEMENT_TIMEOUT_MS = 15_000
"""No read may run longer: a busy server makes one sentence, not a frozen list."""
CONNECT_TIMEOUT_S = 5


def engine_url(location: str) -> URL:
    try:
        url = make_url(location.replace("postgres://", "postgresql://", 1))
    except ArgumentError as error:
        raise SourceError(f"This is not a PostgreSQL URL: {public_text(location)}.") from error
    return url.set(drivername="postgresql+psycopg")


def public_text(location: str) -> str:
    """A location as it may be shown, whether or not it parses: any password replaced."""
    scheme, separator, rest = location.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not separator or not at or ":" not in credentials:
        return location
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}@{host}"


def public_location(location: str) -> str:
    """The URL to show and remember: never its password (from the URL or its query)."""
    try:
        url = make_url(location.replace("postgres://", "postgresql://", 1))
    except ArgumentError:
        return public_text(location)
    query = {k: v for k, v in url.query.items() if k.lower() != "password"}
    public = URL.create(
        url.drivername,
        username=url.username,
        host=url.host,
        port=url.port,
        database=url.database,
        query=query,
    )
    return unquote(public.render_as_string(hide_password=False))


def make_engine(location: str, statement_timeout_ms: int = STATEMENT_TIMEOUT_MS) -> Engine:
    """A small pool of read-only connections (`default_transaction_read_only`, a statement
    timeout); a connection the server dropped is noticed before use and replaced."""
    options = f"-c default_transaction_read_only=on -c statement_timeout={statement_timeout_ms}"
    try:
        import psycopg  # noqa: F401, PLC0415 - only a server history needs the driver
    except ImportError as error:
        raise SourceError(
            "Opening an everruns database needs psycopg 3: pip install 'psycopg[binary]'."
        ) from error
    return create_engine(
        engine_url(location),
        pool_pre_ping=True,
        pool_size=2,
        max_overflow=2,
        connect_args={
            "options": options,
            "connect_timeout": CONNECT_TIMEOUT_S,
            "application_name": "gander",
        },
    )


def secrets_of(location: str) -> tuple[str, ...]:
    """The passwords a URL carries (in its user part or its query), to scrub from messages."""
    try:
        url = make_url(location.replace("postgres://", "postgresql://", 1))
    except ArgumentError:
        return ()
    found = [str(url.password)] if url.password else []
    found += [str(v) for k, v in url.query.items() if k.lower() == "password" and v]
    return tuple(found)


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
