#!/usr/bin/env python3
"""A scripted browser for SAML sign-in tests, run as $BROWSER with the sign-in URL: it opens the
identity provider's SSO URL, fills nanoidp's login form (SAML_BROWSER_USER, SAML_BROWSER_PASSWORD)
and posts the SAMLResponse the IdP hands back to the ACS the IdP's page names, as a browser's
auto-submit form would. Each run appends a line to SAML_BROWSER_COUNT (when set), so tests count
browsers opened. SAML_BROWSER_MODE changes what it does after signing in:
  post (default)   post the response
  never            post nothing (a browser that never returns)
  tamper           rename the Role attribute's role (to SAML_BROWSER_TAMPERED_ROLE) in the signed assertion, then post
  save:PATH        write the SAMLResponse to PATH instead of posting (IdPs that post only to AWS)
  big              post a 10 MB SAMLResponse
  slow             wait SAML_BROWSER_DELAY seconds before posting

With --fetch IDP_SSO_URL ISSUER ACS USER PASSWORD it is an identity provider's client of its own instead: it
sends its own AuthnRequest (zlib's DEFLATE) with that Issuer and ACS, signs in, and prints the
SAMLResponse (tests use it for responses MultiAuth did not ask for).
"""
import base64
import datetime
import html
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zlib


def hidden_inputs(page):
    fields = {}
    for tag in re.findall(r"<input[^>]*>", page):
        name, value = re.search(r'name="([^"]*)"', tag), re.search(r'value="([^"]*)"', tag)
        if name and 'type="hidden"' in tag:
            fields[name.group(1)] = html.unescape(value.group(1)) if value else ""
    return fields


def fetch(url, form=None):
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=30) as answer:
        return answer.read().decode()


def own_request(sso, issuer, acs):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    xml = (f'<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" '
           f'ID="_{uuid.uuid4().hex}" Version="2.0" IssueInstant="{now}" AssertionConsumerServiceURL="{html.escape(acs)}">'
           f"<saml:Issuer>{html.escape(issuer)}</saml:Issuer></samlp:AuthnRequest>")
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    compressed = deflate.compress(xml.encode()) + deflate.flush()
    return sso + "?" + urllib.parse.urlencode({"SAMLRequest": base64.b64encode(compressed).decode()})


def main():
    if sys.argv[1] == "--fetch":
        url = own_request(*sys.argv[2:5])
        login = hidden_inputs(fetch(url))
        login.update(username=sys.argv[5], password=sys.argv[6])
        print(hidden_inputs(fetch(url, login))["SAMLResponse"])
        return 0
    url = sys.argv[1]
    if os.environ.get("SAML_BROWSER_COUNT"):
        with open(os.environ["SAML_BROWSER_COUNT"], "a") as count:
            count.write("opened\n")
    mode = os.environ.get("SAML_BROWSER_MODE", "post")
    login = hidden_inputs(fetch(url))
    login.update(username=os.environ["SAML_BROWSER_USER"], password=os.environ["SAML_BROWSER_PASSWORD"])
    page = fetch(url, login)
    answer = hidden_inputs(page)
    action = html.unescape(re.search(r'<form method="post" action="([^"]*)"', page).group(1))
    if mode == "never":
        return 0
    if mode.startswith("save:"):
        with open(mode[5:], "w") as saved:
            saved.write(answer["SAMLResponse"])
        return 0
    if mode == "tamper":
        xml = base64.b64decode(answer["SAMLResponse"]).decode()
        answer["SAMLResponse"] = base64.b64encode(xml.replace("role/SAMLDeveloper", "role/" + os.environ.get("SAML_BROWSER_TAMPERED_ROLE", "SAMLTampered")).encode()).decode()
    if mode == "big":
        answer["SAMLResponse"] = "A" * (10 << 20)
    if mode == "slow":
        time.sleep(float(os.environ.get("SAML_BROWSER_DELAY", "2")))
    try:
        fetch(action, answer)
    except (urllib.error.URLError, ConnectionError):
        pass  # the ACS refused it; the command under test says why
    return 0


if __name__ == "__main__":
    sys.exit(main())
