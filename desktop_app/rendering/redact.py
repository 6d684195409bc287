"""Removing secrets before a transcript leaves Gander (`gander show --redact`, redacted copies).

Redaction works on the domain objects — every string of a session and of each message, its
parts, their arguments, results and raw JSON — before anything renders or serialises them. So
it holds in every format alike: HTML cannot split a key from its value into separate spans, and
JSON cannot turn a newline into the two characters `\\n` that line rules would miss.

Two kinds of rule:

- **Structure.** In JSON values, a key that names a secret (`password`, `api_key`,
  `client_secret`, `AWS_SECRET_ACCESS_KEY`, `PGPASSWORD`, `Cookie`), a name/value pair
  (`{"name": "DB_PASSWORD", "value": …}`) or a header pair (`["Authorization", "…"]`) has its
  whole value replaced, a number (`{"db_password": 966471357}`) as a string.
- **Text.** Inside any string: token families by their real shapes (OpenAI, Anthropic, AWS,
  GitHub, GitLab, Slack tokens and webhooks, Stripe, Hugging Face, npm, SendGrid, Google, JWTs,
  PEM and OpenSSH private keys), credentials in URLs of any scheme (on a patch's `+` line too),
  `Authorization`, bearer and cookie values, `.netrc` entries, name/value pairs written as text
  (JSON, Kubernetes YAML), `key = value` assignments as code, `.env`, YAML, INI and JSON write
  them (`PGPASSWORD=`, Azure's `AccountKey=`, `pass=`), and the options of commands that take a
  password (`curl -u user:pw`, `mysql -pX`, `sshpass -p`, `docker login -p`, HTTPie's
  `-a user:pw` and, after `-A bearer`, `-a TOKEN`, `smbclient -U user%pw`), read up to that
  command's end (`&&`, `||`, `|` or `;` outside quotes, or the line's).

What is not a secret stays: `PWD=/home/dev/x`, `password=getpass.getpass()`,
`private_key = load_key(path)`, `secret: true`, `sk-learn`, "a basic understanding",
`gcc -pthread` (also after `mysql -p db &&`), `git push -u origin`, `http -a alice`,
placeholders such as `<your key here>`, `YOUR_API_KEY` or `$TOKEN`. Every pattern starts at a
boundary its own characters cannot cross, and a command's line end is found once per line, so
a run of look-alike text is tried once, not once per character: the cost is linear in the text,
and no text is too long to be redacted. Replacements hold no quotes or backslashes, so JSON
stays valid.
"""

import dataclasses
import re
import string
from collections.abc import Callable
from enum import Enum
from typing import Any, TypeVar

T = TypeVar("T")

REDACTED = "[REDACTED:{}]"

# ---- text rules -----------------------------------------------------------------------------

_ESCAPE = r"(?<=\\[nrt])"
"""Right after an escaped newline or tab: a line start inside JSON text."""
_NOT_AFTER_WORD = rf"(?:(?<![A-Za-z0-9_-])|{_ESCAPE})"
"""A token starts where its own characters do not continue from the left."""
_END = r"(?![A-Za-z0-9_-])"

_TOKENS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("anthropic-key", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai-key", ("sk-",), r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}"),
    ("openai-key", ("sk-",), r"sk-[A-Za-z0-9]{20,}" + _END),
    (
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
    ),
    ("gitlab-token", ("gl",), r"gl(?:pat|dt|rt|ptt|ft|cbt|imt|oas|soat)-[A-Za-z0-9_-]{20,}"),
    (
        "slack-token",
        ("xox", "xapp-"),
        r"(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,})",
    ),
    (
        "stripe-key",
        ("_live_", "_test_", "whsec_"),
        r"(?:(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{20,})",
    ),
    ("huggingface-token", ("hf_",), r"hf_[A-Za-z0-9]{30,}" + _END),
    ("npm-token", ("npm_",), r"npm_[A-Za-z0-9]{36,}" + _END),
    ("sendgrid-key", ("SG.",), r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    ("google-api-key", ("AIza",), r"AIza[0-9A-Za-z_-]{35}" + _END),
    (
        "aws-access-key",
        ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"),
        r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}" + _END,
    ),
    ("jwt", ("eyJ",), r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
)

_NEEDS_MIXED = {"openai-key", "huggingface-token"}
"""Families whose prefix also begins ordinary words: the token must look random."""


def _random_looking(token: str) -> bool:
    """Mixed case, or letters and digits: what a generated key has and a word has not."""
    body = token.split("-", 1)[-1].split("_", 1)[-1]
    upper = any(c.isupper() for c in body)
    lower = any(c.islower() for c in body)
    digit = any(c.isdigit() for c in body)
    return (upper and lower) or (digit and (upper or lower))


def _token(kind: str) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        if kind in _NEEDS_MIXED and not _random_looking(match.group(0)):
            return match.group(0)
        return REDACTED.format(kind)

    return replace


_SLACK_WEBHOOK = re.compile(
    r"(https://hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9_/-]{8,}"
)
_URL_CREDENTIALS = re.compile(
    r"(?<![A-Za-z0-9.])([A-Za-z][A-Za-z0-9+.-]{0,30}://[^/\s:@\"'\\]{0,256}:)"
    r"(?P<password>[^\s\"'\\@]{1,512})@"
)
"""`scheme://user:password@`: any scheme (`git+https`), also on a patch's `+`/`-` line, with a
`/` inside the password (which a port and a path, `host:8080/a/@b`, are not)."""


def _url_credentials(match: re.Match[str]) -> str:
    port, slash, _ = match["password"].partition("/")
    if slash and port.isdigit():
        return match.group(0)
    return match.group(1) + REDACTED.format("url-credentials") + "@"


_AUTHORIZATION = re.compile(
    r"(?i)((?<![A-Za-z0-9])(?:proxy-)?authorization\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
    r"(?:(?:bearer|basic|token|digest)[ \t]+)?)"
    r"[^\s\"'\\,;]{8,}"
)
_BEARER = re.compile(r"((?:(?<![A-Za-z0-9])|(?<=\\[nrt]))[Bb]earer[ \t]+)[A-Za-z0-9._~+/-]{16,}=*")
_BASIC = re.compile(
    r"((?<![A-Za-z0-9])[Bb]asic[ \t]+)(?P<value>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])"
)


def _basic(match: re.Match[str]) -> str:
    """`Basic <base64 of user:password>`, not "basic understanding"."""
    value = match["value"]
    if not (_random_looking(value) or value.endswith("=")):
        return match.group(0)
    return match.group(1) + REDACTED.format("basic-auth")


_COOKIE = re.compile(
    rf"(?i)((?:(?<![A-Za-z0-9-])|{_ESCAPE})(?:set-)?cookie\\?[\"']?[ \t]*:[ \t]*)"
    r"[^\s\"'\\;=]{1,256}=[^\s\"'\\;]*+"
    r"(?:;[ \t]*+[^\s\"'\\;=]{1,256}(?:=[^\s\"'\\;]*+)?+)*+"
)
"""A `Cookie:` or `Set-Cookie:` header's `name=value` pairs and attributes."""

_SEPARATOR = r"(?:[ \t\r\n]|\\[nrt])++"
_WORD = r"[^\s\"'\\]{1,256}"
_NETRC = re.compile(
    rf"((?:(?<![A-Za-z0-9_-])|{_ESCAPE})machine{_SEPARATOR}{_WORD}"
    rf"(?:{_SEPARATOR}(?:login|account|port){_SEPARATOR}{_WORD})*+{_SEPARATOR}password{_SEPARATOR})"
    rf"(?P<value>{_WORD})"
)
"""A `.netrc` entry, `machine host login user password X`, on one line or several."""

_QUOTE = r"\\{0,8}[\"']"
_PAIR = re.compile(
    rf"((?:(?<![A-Za-z0-9_-])|{_ESCAPE})(?:name|key|Name|Key){_QUOTE}?[ \t]*[:=][ \t]*{_QUOTE}?"
    rf"(?P<name>[A-Za-z0-9_.-]{{1,128}}){_QUOTE}?(?:[\s,]|\\[nrt])*+"
    rf"{_QUOTE}?(?:value|Value){_QUOTE}?[ \t]*[:=][ \t]*)"
    rf"(?:(?P<quote>{_QUOTE})(?P<quoted>[^\"'\\\n]{{1,512}})(?={_QUOTE})"
    r"|(?P<bare>[^\s\"'\\,;}\]]{1,512}))"
)
"""A name/value pair written as text: `{"name": "DB_PASSWORD", "value": "…"}` in a command's
JSON output, `- name: DB_PASSWORD` then `value: …` in a Kubernetes manifest."""


def _pair(match: re.Match[str]) -> str:
    quoted = match["quoted"]
    value = quoted if quoted is not None else match["bare"]
    if not secret_key(match["name"]) or not secret_value(
        value, match["name"], quoted=quoted is not None
    ):
        return match.group(0)
    return match.group(1) + (match["quote"] or "") + REDACTED.format("password")


def _netrc(match: re.Match[str]) -> str:
    if not secret_value(match["value"], "password", quoted=True):
        return match.group(0)
    return match.group(1) + REDACTED.format("password")


_OPTION_VALUE = r"['\"]?)(?P<value>[^\s\"'\\]{1,512})"
_USER_COLON = r"(?P<user>[^\s:\"'\\]{1,256}):)"
_HTTPIE_AUTH = r"(?<![^\s\"'])((?:-a[ \t]+|--auth[ \t=]+)['\"]?"
_HTTPIE_USER = re.compile(_HTTPIE_AUTH + _USER_COLON + r"(?P<value>[^\s\"'\\]{1,512})")
_HTTPIE_TOKEN = re.compile(_HTTPIE_AUTH + r")(?P<value>[^\s\"'\\]{1,512})")
_HTTPIE_BEARER = re.compile(
    r"(?<![^\s\"'])(?:-A|--auth-type)[ \t=]*['\"]?(?:bearer|jwt)(?![A-Za-z])"
)
"""HTTPie's `-A bearer` (or its `jwt` plugin): `-a` then holds a token, where otherwise it
holds `user:password` (or `user` alone, and HTTPie asks)."""


def _options(pattern: re.Pattern[str]) -> Callable[[str], str]:
    def rewrite(segment: str) -> str:
        return pattern.sub(_option, segment)

    return rewrite


def _httpie(segment: str) -> str:
    """`http -a user:pw …`, `--auth=user:pw`; with `-A bearer`, `-a TOKEN` too."""
    if _HTTPIE_BEARER.search(segment):
        return _HTTPIE_TOKEN.sub(_option, segment)
    return _HTTPIE_USER.sub(_option, segment)


_COMMAND_OPTIONS: tuple[tuple[tuple[str, ...], Callable[[str], str]], ...] = (
    # mysql's password is glued to its option: `-pX` (`-p X` asks, and X is the database).
    (("mysql", "mariadb"), _options(re.compile(r"(?<![^\s\"'])(-p" + _OPTION_VALUE))),
    (("sshpass",), _options(re.compile(r"(?<![^\s\"'])(-p[ \t]*" + _OPTION_VALUE))),
    # docker, podman, helm, az, oras … login -p X
    (("login",), _options(re.compile(r"(?<![^\s\"'])(-p[ \t]+" + _OPTION_VALUE))),
    (
        ("curl",),
        _options(
            re.compile(
                r"(?<![^\s\"'])((?:-u|-U|--user|--proxy-user)[ \t=]*['\"]?"
                + _USER_COLON
                + r"(?P<value>[^\s\"'\\]{1,512})"
            )
        ),
    ),
    # HTTPie and xh, its Rust twin: `http`, `https`, `xh`, `xhs` followed by their arguments.
    (("http ", "https ", "xh ", "xhs "), _httpie),
    # Samba's clients: `-U user%password`, `--user=DOMAIN\user%password`.
    (
        ("smbclient", "rpcclient", "smbcacls", "smbcquotas", "smbget", "smbtree"),
        _options(
            re.compile(
                r"(?<![^\s\"'])((?:-U|--user)[ \t=]*['\"]?(?P<user>[^\s%\"']{1,256})%)"
                r"(?P<value>[^\s\"'\\]{1,512})"
            )
        ),
    ),
)
"""Commands that take a password as an option's value, each with how its options are
rewritten, applied to the rest of that command only (so `-pthread` or `git push -u origin` in
another command stay)."""


_NUMERIC = re.compile(r"[0-9:./-]+")
"""A port mapping, an address or a version (`-p 8080:80`, `-u 1000:1000`), not a password."""


def _option(match: re.Match[str]) -> str:
    value = match["value"]
    if (
        match.groupdict().get("user") == value
        or _NUMERIC.fullmatch(value)
        or not secret_value(value, "password", quoted=False)
    ):
        return match.group(0)
    return match.group(1) + REDACTED.format("password")


def _newline_end(text: str, position: int) -> int:
    """Where the line holding `position` ends: its newline that a backslash does not continue
    (`curl -X POST \\` then `-u user:pw` on the next line), or the text's end."""
    end = text.find("\n", position)
    while end > 0 and text[end - 1] == "\\":
        end = text.find("\n", end + 1)
    return len(text) if end < 0 else end


def _escaped_end(text: str, position: int, end: int) -> int:
    """Where a line of JSON text ends before `end`: its `\\n` (not an escaped backslash then
    `n`), or `end`."""
    escaped = text.find("\\n", position, end)
    while escaped >= 2 and text[escaped - 2 : escaped] == "\\\\":
        escaped = text.find("\\n", escaped + 2, end)
    return end if escaped < 0 else escaped


_SEPARATOR_OR_QUOTE = re.compile(r"&&|\|\|?|;|[\"']")
"""What ends a shell command (`&&`, `||`, `|`, `;`), and the quotes that hide one."""


def _command_end(text: str, position: int, end: int) -> int:
    """Where the command starting at `position` ends: at its line's end (`end`) or before the
    first `&&`, `||`, `|` or `;` outside quotes (escaped quotes, as JSON text has them, count as
    quotes). `mysql -p app && gcc -pthread`: gcc's `-pthread` is no mysql password. A lone `&`
    is not taken as an end (a URL's query holds one), nor is a separator after a quote left
    open: a command read on too far is only over-redacted."""
    quote = ""
    for found in _SEPARATOR_OR_QUOTE.finditer(text, position, end):
        mark = found.group(0)
        if mark in "\"'":
            quote = "" if mark == quote else quote or mark
        elif not quote:
            return found.start()
    return end


def _command_options(text: str, lowered: str) -> str:
    """Each command from its name to its end (a shell separator outside quotes, or the line's
    end: a newline not continued by a backslash, or `\\n` in JSON text), rewritten by that
    command's option rule. Each stretch of text is read once per command whatever the number of
    times the name occurs in it."""
    for needles, rewrite in _COMMAND_OPTIONS:
        spans: list[tuple[int, int]] = []
        for needle in needles:
            position = lowered.find(needle)
            # Each found once, however many commands a line holds (a text without newlines
            # holds many JSON lines).
            newline_end = line_end = -1
            while position >= 0:
                if position >= newline_end:
                    newline_end = _newline_end(lowered, position)
                if position >= line_end:
                    line_end = _escaped_end(lowered, position, newline_end)
                end = _command_end(lowered, position, line_end)
                spans.append((position, end))
                position = lowered.find(needle, end)
        if not spans:
            continue
        out: list[str] = []
        done = 0
        for found, end in sorted(spans):
            start = max(found, done)
            if start >= end:
                continue
            out.append(text[done:start])
            out.append(rewrite(text[start:end]))
            done = end
        out.append(text[done:])
        text = "".join(out)
        lowered = text.translate(_ASCII_LOWER)
    return text


_PEM_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_BODY = re.compile(
    r"(?:[A-Za-z0-9-]{1,40}:[^\n\\]*(?:\r?\n|\\n))*+"
    r"(?:[A-Za-z0-9+/=]|\r?\n|\\[nr]|\[REDACTED:[a-z-]{1,30}\])*+"
)
"""A truncated key's body when its END line is missing: optional `Name: value` header lines
(encrypted PEM), then base64 and line breaks (real or JSON-escaped), through anything the other
rules already replaced."""


def _private_keys(text: str) -> str:
    """Each `BEGIN … PRIVATE KEY` to its `END` line, or to the end of its base64 body when the
    END line is missing. The search for END lines never rescans: once none is left, no later
    key has one either."""
    if "PRIVATE KEY" not in text:
        return text
    out: list[str] = []
    position = 0
    ends_left = True
    while (begin := _PEM_BEGIN.search(text, position)) is not None:
        out.append(text[position : begin.start()])
        end = _PEM_END.search(text, begin.end()) if ends_left else None
        if end is None:
            ends_left = False
            body = _PEM_BODY.match(text, begin.end())
            stop = body.end() if body is not None else begin.end()
        else:
            stop = end.end()
        out.append(REDACTED.format("private-key"))
        position = stop
    out.append(text[position:])
    return "".join(out)


# ---- key = value --------------------------------------------------------------------------

_SECRET_WORDS = (
    "secret_access_key",
    "client_secret",
    "access_token",
    "auth_token",
    "refresh_token",
    "session_token",
    "private_key",
    "secret_key",
    "access_key",
    "shared_access_key",
    "account_key",
    "api_key",
    "apikey",
    "passphrase",
    "password",
    "passwd",
    "sshpass",
    "pass",
    "secret",
    "token",
    "credentials",
    "credential",
)
_KEY_LOWER = re.compile(
    rf"(?:(?<![a-z0-9])|{_ESCAPE})(?:"
    + "|".join(word.replace("_", "[_-]?") for word in _SECRET_WORDS)
    + ")(?![a-z0-9])|(?<=[_.-])pwd(?![a-z0-9])|(?<=[a-z0-9])passw(?:or)?d(?![a-z0-9])"
)
"""Secret-named keys in an ASCII-lower-cased copy of the text: `password`, `DB_PASSWORD`,
`client-secret`, `db_pwd`, `PGPASSWORD` (but not `PWD`, the shell's working directory)."""
_CAMEL_WORDS = tuple(
    "".join(piece.capitalize() for piece in word.split("_")) for word in _SECRET_WORDS
)
_KEY_CAMEL = re.compile("(?<=[a-z0-9])(?:" + "|".join(_CAMEL_WORDS) + ")(?![a-z0-9])")
"""camelCase keys in the text itself: `dbPassword`, `apiKey`, `clientSecret`."""
_KEY_NEEDLES = ("pass", "secret", "token", "key", "credential", "pwd")
_VALUE = re.compile(
    r"(?P<sep>\\{0,8}[\"']?[ \t]*(?:=>|:=|[:=])[ \t]*)"
    r"(?:(?P<quote>\\{0,8}[\"'])(?P<quoted>[^\"'\\\n]+)(?=\\{0,8}[\"'])"
    r"|(?P<bare>[^\s\"'\\,;&|<>`=]+=*))"
)
"""What follows a key in an assignment: `=`, `:`, `:=` or `=>`, then a quoted or bare value
(quotes may be escaped, once or more, as JSON inside JSON has them).
No part of it can run over another assignment, so each key costs at most its own line."""
_FLAG = re.compile(
    r"(?<![A-Za-z0-9-])(--(?:password|passwd|token|api-key|secret|client-secret)[ \t]+)"
    r"(?P<value>[^\s\"'-][^\s\"']{3,511})"
)

_NOT_VALUES = {
    "true",
    "false",
    "null",
    "none",
    "nil",
    "undefined",
    "yes",
    "no",
    "on",
    "off",
    "required",
    "optional",
    "str",
    "string",
    "bytes",
    "bool",
    "int",
    "any",
    "object",
    "secretstr",
    "redacted",
}
_NAME_ONLY = re.compile(r"[A-Za-z_.-]+")
"""A value made of letters and separators only: the key's own name (`YOUR_API_KEY`) is a
placeholder, while `Password2024!` or `token-abc123XYZ` are secrets that hold it."""
_EXPRESSION = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?P<call>[(\[]|$)")
_PLACEHOLDER_START = ("$", "%", "{{", "<", "[REDACTED", "@", "!", "...")


def secret_value(value: str, key: str, *, quoted: bool) -> bool:
    """Whether the value assigned to a secret-named key is itself a secret, not a placeholder,
    a type, a boolean, a path or an expression that computes it."""
    stripped = value.strip()
    lowered = stripped.lower()
    if len(stripped) < 4 or lowered in _NOT_VALUES or stripped.startswith(_PLACEHOLDER_START):
        return False
    word = _secret_word(key)
    if len(set(stripped)) == 1 or (
        word
        and _NAME_ONLY.fullmatch(stripped)
        and word.replace("_", "") in _snake(stripped).replace("_", "")
    ):
        return False
    if stripped.isdigit() and len(stripped) < 6:
        return False
    if quoted:
        return True
    if stripped.startswith(("/", "~/", "./", "../")):
        return False
    expression = _EXPRESSION.fullmatch(stripped) or _EXPRESSION.match(stripped)
    return not (expression and (expression["call"] or "." in expression.group(0)))


def _assignments(text: str) -> str:
    """Replace the values of `key = value` assignments whose key names a secret."""
    lowered = text.translate(_ASCII_LOWER)
    if not any(needle in lowered for needle in _KEY_NEEDLES):
        return text
    keys = [match.span() for match in _KEY_LOWER.finditer(lowered)]
    if any(word in text for word in _CAMEL_WORDS):
        keys = sorted(keys + [match.span() for match in _KEY_CAMEL.finditer(text)])
    out: list[str] = []
    position = 0
    for start, end in keys:
        if start < position:
            continue
        value = _VALUE.match(text, end)
        if value is None:
            continue
        if lowered[start:end] == "pass" and (
            "=" not in value["sep"] or (text[start - 1 : start] == "_" and text[start] == "p")
        ):
            continue  # `pass=…`, `DB_PASS=…`; not `pass: 12` (a test count) or `first_pass=…`
        quoted = value["quoted"]
        secret = quoted if quoted is not None else value["bare"]
        if not secret_value(secret, text[start:end], quoted=quoted is not None):
            continue
        out.append(text[position:end])
        out.append(f"{value['sep']}{value['quote'] or ''}{REDACTED.format('password')}")
        # A bare value's closing brackets belong to the JSON or code around it.
        position = value.end() - (len(secret) - len(secret.rstrip("}])")) if quoted is None else 0)
    out.append(text[position:])
    return "".join(out)


def _flag(match: re.Match[str]) -> str:
    if not secret_value(match["value"], match.group(1).strip(" \t-"), quoted=False):
        return match.group(0)
    return match.group(1) + REDACTED.format("password")


def _keeping_prefix(kind: str) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        suffix = "@" if match.group(0).endswith("@") else ""
        return match.group(1) + REDACTED.format(kind) + suffix

    return replace


Rule = tuple[tuple[str, ...], re.Pattern[str], Callable[[re.Match[str]], str]]
"""Needles (a rule runs only on text holding one of them, ASCII case ignored), the pattern and
what replaces a match."""

_RULES: tuple[Rule, ...] = (
    (("hooks.slack.com",), _SLACK_WEBHOOK, _keeping_prefix("slack-webhook")),
    (("://",), _URL_CREDENTIALS, _url_credentials),
    (("authorization",), _AUTHORIZATION, _keeping_prefix("authorization")),
    (("bearer",), _BEARER, _keeping_prefix("bearer-token")),
    (("basic",), _BASIC, _basic),
    (("cookie",), _COOKIE, _keeping_prefix("cookie")),
    (("machine",), _NETRC, _netrc),
    (("value",), _PAIR, _pair),
    *(
        (tuple(n.lower() for n in needles), re.compile(_NOT_AFTER_WORD + pattern), _token(kind))
        for kind, needles, pattern in _TOKENS
    ),
    (("--",), _FLAG, _flag),
)
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def redact_text(text: str) -> str:
    """`text` with every secret it holds replaced by `[REDACTED:<kind>]`; any length.

    A rule runs only where its needle occurs (found in an ASCII-lower-cased copy, which keeps
    every position), so a large text pays only for the families it could hold. Private keys
    go last: the body of a truncated key runs to where base64 stops, and must not swallow the
    start of a URL or assignment that another rule needs to see."""
    lowered = text.translate(_ASCII_LOWER)
    for needles, pattern, replace in _RULES:
        if any(needle in lowered for needle in needles):
            text = pattern.sub(replace, text)
    return _private_keys(_assignments(_command_options(text, text.translate(_ASCII_LOWER))))


# ---- structure ------------------------------------------------------------------------------

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SECRET_KEY_NAMES = {
    *_SECRET_WORDS,
    "authorization",
    "proxy_authorization",
    "x_api_key",
    "cookie",
    "set_cookie",
}


def _snake(name: str) -> str:
    return _CAMEL.sub("_", name).lower().replace("-", "_").replace(".", "_")


def _secret_word(name: str) -> str | None:
    """The secret word a name ends with (`secret_access_key` of `AWS_SECRET_ACCESS_KEY`)."""
    snake = _snake(name)
    if snake.endswith("_pwd") and len(snake) > 4:
        return "pwd"
    if snake.endswith(("password", "passwd")) and not snake.endswith(("_password", "_passwd")):
        return "password"  # PGPASSWORD
    words = [
        w
        for w in _SECRET_KEY_NAMES
        if snake == w or (snake.endswith("_" + w) and (w != "pass" or name.isupper()))
    ]  # `DB_PASS`, not `first_pass`
    return max(words, key=len) if words else None


def secret_key(name: str) -> bool:
    """Whether a JSON key (or a variable's name) names a secret: `password`, `DB_PASSWORD`,
    `clientSecret`, `x-api-key`; not `token_count`, `max_tokens` or `passwordless`."""
    return _secret_word(name) is not None


def _secret_number(value: object) -> bool:
    """A number stored as a secret's value (`{"db_password": 966471357}`): as long as a PIN or
    more, as the text rule has it; booleans are flags, not values."""
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and (secret_value(str(value), "", quoted=True))
    )


def _leaf(value: Any, key: object) -> Any:
    secret_named = isinstance(key, str) and secret_key(key)
    if not isinstance(value, str):
        return REDACTED.format("password") if secret_named and _secret_number(value) else value
    if secret_named and secret_value(value, str(key), quoted=True):
        return REDACTED.format("password")
    return redact_text(value)


def _pair_value_key(mapping: dict[Any, Any]) -> str | None:
    """`{"name": "DB_PASSWORD", "value": "…"}`: the key under which the secret value sits."""
    for name_key, value_key in (("name", "value"), ("key", "value"), ("Name", "Value")):
        name = mapping.get(name_key)
        value = mapping.get(value_key)
        if (
            isinstance(name, str)
            and secret_key(name)
            and (isinstance(value, str) or _secret_number(value))
        ):
            return value_key
    return None


def redact_json(value: Any) -> Any:
    """A JSON value with secrets removed from every string and under every secret-named key.
    Iterative, so a value nested 100,000 levels deep is no problem."""
    if not isinstance(value, dict | list):
        return _leaf(value, None)
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, holder, 0)]
    while stack:
        source, target, slot = stack.pop()
        if isinstance(source, dict):
            copy: dict[Any, Any] = {}
            target[slot] = copy
            paired = _pair_value_key(source)
            for key, item in source.items():
                new_key = redact_text(key) if isinstance(key, str) else key
                if isinstance(item, dict | list):
                    copy[new_key] = None
                    stack.append((item, copy, new_key))
                elif key == paired and (
                    secret_value(item, "", quoted=True)
                    if isinstance(item, str)
                    else _secret_number(item)
                ):
                    copy[new_key] = REDACTED.format("password")
                else:
                    copy[new_key] = _leaf(item, key)
        else:
            items: list[Any] = [None] * len(source)
            target[slot] = items
            # A header as a pair: ["Authorization", "Basic …"].
            pair_key = source[0] if len(source) == 2 and isinstance(source[0], str) else None
            for index, item in enumerate(source):
                if isinstance(item, dict | list):
                    stack.append((item, items, index))
                else:
                    items[index] = _leaf(item, pair_key if index == 1 else None)
    return holder[0]


def _redact_any(value: Any) -> Any:
    if isinstance(value, Enum) or value is None or isinstance(value, bool | int | float | bytes):
        return value
    if isinstance(value, str):
        return redact_text(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return redact(value)
    if isinstance(value, tuple):
        return tuple(_redact_any(item) for item in value)
    if isinstance(value, dict | list):
        return redact_json(value)
    return value


def redact(item: T) -> T:
    """A copy of a domain object (a `Session`, a `Message`, a part) with every secret in any of
    its strings and JSON values replaced."""
    if not dataclasses.is_dataclass(item) or isinstance(item, type):
        return item
    changes = {}
    for field in dataclasses.fields(item):
        if not field.init:
            continue
        current = getattr(item, field.name)
        cleaned = _redact_any(current)
        # Identity, not equality: comparing two stored JSON values nested a thousand deep
        # would itself recurse too far.
        if cleaned is not current:
            changes[field.name] = cleaned
    return dataclasses.replace(item, **changes) if changes else item
