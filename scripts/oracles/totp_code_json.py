"""The current TOTP code for the base32 secret on the command line, as {"code": ...}: the
same `cryptography` TOTP as totp_code.py, for tests that read oracles as JSON."""
import json
import subprocess
import sys
from pathlib import Path

code = subprocess.run([sys.executable, str(Path(__file__).with_name("totp_code.py")), sys.argv[1]], capture_output=True, text=True, check=True)
print(json.dumps({"code": code.stdout.strip()}))
