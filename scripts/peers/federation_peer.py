"""The sign-in service's federation endpoint (`/federation`), served inside the STS stand-in so
that it knows the sessions STS issued: `Action=getSigninToken` takes a `Session` JSON document
(`sessionId`, `sessionKey`, `sessionToken`) and answers {"SigninToken": ...} only when the three
are a live session the STS stand-in issued; `SessionDuration` (900 to 43200) only for a role's
session (a federated user's session lasts as its token does, as AWS documents). `Action=login`
redirects to `Destination` (302) for a sign-in token issued in the last 15 minutes. What AWS's
documentation prescribes for a custom identity broker is what is checked; no AWS emulator serves
this endpoint (moto has none).

GET /_peer/signin-token?SigninToken=T&sessionId=AKID answers 200 when T was issued for the session
AKID, 403 otherwise: how tests tell a URL's token belongs to the session it came from.
"""
import datetime
import json
import secrets
import string
import urllib.parse

TOKEN_LIFETIME = datetime.timedelta(minutes=15)


class Refusal(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status, self.message = status, message


def _now():
    return datetime.datetime.now(datetime.timezone.utc)


def get_signin_token(query, keys, tokens):
    """The sign-in token for the session `query` names, checked against `keys` (key id ->
    (secret, token, arn, expires), STS's issued sessions); returns (token, key id)."""
    try:
        session = json.loads(query.get("Session", ""))
        key_id, secret, token = session["sessionId"], session["sessionKey"], session["sessionToken"]
    except (ValueError, KeyError, TypeError):
        raise Refusal(400, "Session must be a JSON object with sessionId, sessionKey and sessionToken")
    known = keys.get(key_id)
    if known is None or known[1] is None:
        raise Refusal(400, "the session is not a temporary session STS issued")
    issued_secret, issued_token, arn, expires = known
    if not (secrets.compare_digest(issued_secret, secret) and secrets.compare_digest(issued_token, token)):
        raise Refusal(400, "the session's key or token is not the one STS issued")
    if expires is not None and expires < _now():
        raise Refusal(400, "the session expired")
    duration = query.get("SessionDuration")
    if duration is not None:
        if ":federated-user/" in (arn or ""):
            raise Refusal(400, "SessionDuration is not accepted for a GetFederationToken session")
        if not duration.isdigit() or not 900 <= int(duration) <= 43200:
            raise Refusal(400, "SessionDuration must be between 900 and 43200")
    signin_token = "".join(secrets.choice(string.ascii_letters + string.digits + "-_") for _ in range(320))
    tokens[signin_token] = (key_id, _now() + TOKEN_LIFETIME)
    return signin_token, key_id


def login(query, tokens):
    """The redirect for `Action=login`: (302, Destination)."""
    entry = tokens.get(query.get("SigninToken", ""))
    if entry is None or entry[1] < _now():
        raise Refusal(400, "the sign-in token is unknown or expired")
    destination = query.get("Destination", "")
    if urllib.parse.urlsplit(destination).scheme not in ("http", "https"):
        raise Refusal(400, "Destination must be an http(s) URL")
    return destination


def token_belongs(query, tokens):
    entry = tokens.get(query.get("SigninToken", ""))
    return entry is not None and entry[0] == query.get("sessionId")
