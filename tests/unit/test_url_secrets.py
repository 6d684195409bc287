"""An everruns URL's secrets never leave the process (#18 item 3): the password in its user part
and every libpq parameter that holds a secret are missing from whatever Gander shows or stores
— `list --json`, the search index, the settings, every sentence — on a real PostgreSQL server."""

import sqlite3
from pathlib import Path

import psycopg
import pytest
from PySide6.QtCore import QSettings

from desktop_app.cli import main
from desktop_app.domain.errors import GanderError
from desktop_app.search.index import index_path, open_index
from desktop_app.search.storage import IndexStorage
from desktop_app.sources.everruns.connection import SECRET_PARAMETERS, public_location, secrets_of
from desktop_app.sources.registry import open_history
from desktop_app.ui.settings import Settings
from tests.fixtures.postgres import EverrunsDb, PostgresServer

PASSWORD = "Pw-in-the-user-part-1"
SSL_PASSWORD = "Ssl-key-passphrase-2"
CLIENT_SECRET = "Oauth-client-secret-3"
PASSFILE = "/srv/secret-place/pgpass-4"
SECRETS = (PASSWORD, SSL_PASSWORD, CLIENT_SECRET, PASSFILE)


def _with_secrets(url: str) -> str:
    """`url` (…?host=/socket) with a password and every kind of secret parameter added, one of
    them with its key percent-encoded (libpq decodes keys)."""
    scheme, _, rest = url.partition("://")
    user, _, where = rest.partition("@")
    return (
        f"{scheme}://{user}:{PASSWORD}@{where}&ssl%70assword={SSL_PASSWORD}"
        f"&application_name=kept&oauth_client_secret={CLIENT_SECRET}&passfile={PASSFILE}"
    )


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            f"postgresql://me:{PASSWORD}@db:5432/everruns?sslmode=require&sslpassword={SSL_PASSWORD}",
            "postgresql://me@db:5432/everruns?sslmode=require",
        ),
        (
            f"postgres://me@h/db?PASSWORD={PASSWORD}&scram_client_key={SSL_PASSWORD}",
            "postgres://me@h/db",
        ),
        (f"postgresql://me:{PASSWORD}@h1:5432,h2:x/db", "postgresql://me@h1:5432,h2:x/db"),
        (f"postgresql://me:a/{PASSWORD}@h/db", "postgresql://me@h/db"),
        (f"postgresql://me:a@{PASSWORD}@h/db?user=x@y", "postgresql://me@h/db?user=x@y"),
        (f"postgresql://:{PASSWORD}@[::1]:bad/db", "postgresql://[::1]:bad/db"),
        (
            f"postgresql://me@h/db?sslpassword+={PASSWORD}&host=/run/pg",
            "postgresql://me@h/db?host=/run/pg",
        ),
        (
            "postgresql://me@/db?host=/run/pg&service=x",
            "postgresql://me@/db?host=/run/pg&service=x",
        ),
    ],
)
def test_a_url_is_shown_without_any_secret(url: str, shown: str) -> None:
    """Read as SQLAlchemy reads it (what reaches libpq), whether or not it could connect (a
    multi-host URL, a port that is no number, a password with `/`, `?` or `@`, a key encoded or
    in capitals): only the secrets go, the rest stays as written."""
    assert public_location(url) == shown
    assert any(PASSWORD in s for s in secrets_of(url)) == (PASSWORD in url)


def test_every_parameter_libpq_marks_secret_is_withheld() -> None:
    """libpq's own table (`PQconndefaults`, dispchar `*`) names its secret options; a libpq that
    adds one makes this fail until Gander withholds it too."""
    marked = {o.keyword.decode() for o in psycopg.pq.Conninfo.get_defaults() if o.dispchar == b"*"}
    assert marked >= {"password", "sslpassword"}
    assert marked <= SECRET_PARAMETERS


def _files_holding(folder: Path, secret: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


@pytest.fixture
def everruns(postgres: PostgresServer) -> EverrunsDb:
    return postgres.everruns_database("ev_url_secrets")


def test_no_secret_reaches_the_cli_the_index_or_a_sentence(
    everruns: EverrunsDb,
    postgres: PostgresServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    session = everruns.add_session("Weather in Kyiv")
    prompt = {
        "id": "message_01",
        "role": "user",
        "content": [{"type": "text", "text": "overcast?"}],
    }
    everruns.add_events(session, [("input.message", {"message": prompt})])
    url = _with_secrets(everruns.url)
    source = open_history(url)
    assert "application_name=kept" in source.info().location
    source.close()
    assert main(["list", "--db", url, "--json"]) == 0
    assert main(["search", "overcast", "--db", url, "--json"]) == 0
    out, err = capsys.readouterr()
    assert session in out
    missing = f"postgresql://gander:{PASSWORD}@/x?host={postgres.root}/missing"
    with pytest.raises(GanderError) as unreachable:
        open_history(f"{missing}&sslpassword={SSL_PASSWORD}&passfile={PASSFILE}")
    with pytest.raises(GanderError) as unparsed:
        open_history(
            f"postgresql://me:a/{PASSWORD}@/db?host={postgres.root}/none&ssl%70assword={SSL_PASSWORD}"
        )
    with pytest.raises(GanderError) as split:
        open_history(f"postgresql://me:a@{PASSWORD}@nohost.invalid/db?connect_timeout=2")
    sentences = f"{unreachable.value} {unparsed.value} {split.value}"
    for secret in SECRETS:
        assert secret not in out + err
        assert secret not in sentences
        assert _files_holding(tmp_path / "xdg-data", secret) == []


def test_settings_never_store_a_secret(tmp_path: Path) -> None:
    """What the window remembers (open and recent histories) holds no secret, and one an
    earlier Gander stored is read without it, so the next write drops it."""
    ini = tmp_path / "gander.ini"
    url = _with_secrets("postgresql://me@/everruns?host=/run/postgresql")
    old = QSettings(str(ini), QSettings.Format.IniFormat)
    old.setValue("sources/recent", [url])
    old.sync()
    settings = Settings(QSettings(str(ini), QSettings.Format.IniFormat))
    assert settings.recent_files == [public_location(url)]
    settings.open_histories = [url]
    settings.remember_file(url)
    settings.sync()
    assert settings.open_histories == settings.recent_files == [public_location(url)]
    for secret in SECRETS:
        assert secret not in ini.read_text()


def test_an_index_an_earlier_gander_keyed_by_a_folded_url_is_deleted(
    everruns: EverrunsDb, tmp_path: Path
) -> None:
    """Earlier, a server's index was named by its URL folded as a path, with the URL's secret
    parameters in its metadata; opening a server's index deletes such files, and only them."""
    folder = tmp_path / "data" / "search"
    folded = str(Path(_with_secrets(everruns.url)).resolve())
    for name, location in (("old.sqlite", folded), ("file.sqlite", str(tmp_path / "a.db"))):
        IndexStorage(folder / name, location).close()
    source = open_history(_with_secrets(everruns.url))
    index = open_index(tmp_path / "data", source)
    index.close()
    source.close()
    assert not (folder / "old.sqlite").exists()
    assert (folder / "file.sqlite").exists()
    for secret in SECRETS:
        assert _files_holding(tmp_path / "data", secret) == []


def test_a_servers_index_is_one_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server's index is named and labelled by its public URL, not by the URL folded as a
    path under the working folder (one index per folder Gander was started in)."""
    url = "postgresql://me@db:5432/everruns?sslmode=require"
    named = []
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        monkeypatch.chdir(tmp_path / folder)
        named.append(index_path(tmp_path / "data", url))
    assert named[0] == named[1]
    storage = IndexStorage(named[0], url)
    storage.close()
    with sqlite3.connect(named[0]) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'source'").fetchone() == (url,)
