"""Connecting to an everruns server: the URL forms libpq takes, credentials from wherever libpq
finds them, and failures as one sentence.

`postgresql://user@host:5432/everruns`, `postgres://…`, a Unix-socket directory as `?host=/path`,
a libpq service as `?service=name`, TLS as `?sslmode=require` (…): the URL goes to psycopg 3,
which hands it to libpq, so a password may come from the URL, `PGPASSWORD` or `~/.pgpass`. The
location Gander shows and remembers is `public_location`'s: never a password or a secret
parameter.
"""

import re
from urllib.parse import quote, unquote, unquote_plus

from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from desktop_app.domain.errors import SourceError
from desktop_app.domain.jsontext import loads

STATEMENT_TIMEOUT_MS = 15_000
"""No read may run longer: a busy server makes one sentence, not a frozen list."""
CONNECT_TIMEOUT_S = 5


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
        json_deserializer=loads,  # JSONB as read from files: a 5,000-digit number costs its field
        pool_size=2,
        max_overflow=2,
        connect_args={
            "options": options,
            "connect_timeout": CONNECT_TIMEOUT_S,
            "application_name": "gander",
        },
    )


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
