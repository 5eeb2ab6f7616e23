#!/usr/bin/env python3
"""A scripted browser for SAML sign-in tests, run as $BROWSER with the sign-in URL: it opens the
identity provider's SSO URL, fills nanoidp's login form (SAML_BROWSER_USER, SAML_BROWSER_PASSWORD)
and posts the SAMLResponse the IdP hands back to the ACS the IdP's page names, as a browser's
auto-submit form would. Each run appends a line to SAML_BROWSER_COUNT (when set), so tests count
browsers opened. SAML_BROWSER_MODE changes what it does after signing in:
  post (default)   post the response
  never            post nothing (a browser that never returns)
  tamper           change the Role attribute's role name in the signed assertion, then post
  save:PATH        write the SAMLResponse to PATH instead of posting (IdPs that post only to AWS)
  big              post a 10 MB SAMLResponse
  slow             wait SAML_BROWSER_DELAY seconds before posting
"""
import base64
import html
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


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


def main():
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
        answer["SAMLResponse"] = base64.b64encode(xml.replace("role/SAMLDeveloper", "role/SAMLAdmin").encode()).decode()
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
