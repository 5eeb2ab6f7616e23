#!/usr/bin/env python3
"""Plays the user at the OIDC peer (nanoidp) for the integration tests.

  oidc_user.py browser AUTHORIZE_URL USERNAME PASSWORD
      Submits the login form of the authorization URL (one POST, as nanoidp allows), then
      follows its redirect to the loopback address, as a browser would. Prints the HTTP
      status of the loopback answer.
  oidc_user.py approve-device ISSUER USER_CODE USERNAME PASSWORD [authorize|deny]
      Approves (or denies) a device authorization at nanoidp's /device page.
"""
import sys
import urllib.error
import urllib.parse
import urllib.request


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


opener = urllib.request.build_opener(NoRedirect)


def post(url, form):
    data = urllib.parse.urlencode(form).encode()
    try:
        response = opener.open(urllib.request.Request(url, data=data, method="POST"), timeout=10)
        return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


if sys.argv[1] == "browser":
    url, username, password = sys.argv[2:5]
    status, headers, _ = post(url, {"username": username, "password": password})
    if status not in (301, 302, 303) or "Location" not in headers:
        print(f"no redirect from the authorization endpoint (HTTP {status})", file=sys.stderr)
        sys.exit(1)
    with urllib.request.urlopen(headers["Location"], timeout=10) as response:
        print(response.status)
elif sys.argv[1] == "approve-device":
    issuer, code, username, password = sys.argv[2:6]
    action = sys.argv[6] if len(sys.argv) > 6 else "authorize"
    status, _, body = post(issuer + "/device", {"user_code": code, "username": username, "password": password, "action": action})
    print(status)
    sys.exit(0 if status < 400 else 1)
