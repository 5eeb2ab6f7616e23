"""Prints the SMS or email code the Cognito stand-in last "sent" to a user (PEER_URL USERNAME):
the test's stand-in for reading a text message or a mailbox."""
import json
import sys
import urllib.request

request = urllib.request.Request(sys.argv[1] + "/_peer/outbox", data=json.dumps({"username": sys.argv[2]}).encode(), method="POST")
print(json.load(urllib.request.urlopen(request, timeout=10))["code"])
