#!/usr/bin/env python3
"""Runs a command, passes its standard output through, then prints its peak resident
memory in KiB on a last line of its own. Usage: max_rss.py COMMAND [ARGS...]"""
import resource
import subprocess
import sys

completed = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE)
sys.stdout.write(completed.stdout.decode(errors="replace"))
print()
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(completed.returncode)
