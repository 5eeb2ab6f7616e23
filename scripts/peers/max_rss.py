#!/usr/bin/env python3
"""Runs a command, passes its standard output through, then prints its peak resident
memory in KiB on a last line of its own. Usage: max_rss.py [--count-output] COMMAND [ARGS...]
With --count-output the output is read as it comes and only its length in bytes is printed
(for commands that print more than should be held in memory)."""
import resource
import subprocess
import sys

arguments = sys.argv[1:]
count_only = arguments[:1] == ["--count-output"]
if count_only:
    arguments = arguments[1:]
    child = subprocess.Popen(arguments, stdout=subprocess.PIPE)
    total = 0
    while True:
        chunk = child.stdout.read(1 << 20)
        if not chunk:
            break
        total += len(chunk)
    returncode = child.wait()
    print(total)
else:
    completed = subprocess.run(arguments, stdout=subprocess.PIPE)
    sys.stdout.write(completed.stdout.decode(errors="replace"))
    print()
    returncode = completed.returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(returncode)
