#!/usr/bin/env python3
"""Times an MCP stdio proxy as an agent host uses it: starts COMMAND (its arguments after --),
writes `initialize` and times the answer from the process start, then makes --calls
sequential `tools/call`s of echo and times each. The proxy's CPU time over the calls (user +
system, /proc/PID/stat) and its peak RSS (VmHWM) are read before it is closed. Prints one JSON
object: start_ms, call_ms_median, call_ms_p99, cpu_us_per_call, peak_rss_kib, answers (the
distinct echo answers, to show both proxies did the same calls), or with --label one line.
Usage: mcp_bench.py [--calls N] [--label NAME] -- COMMAND ARG...
"""
import argparse
import json
import os
import statistics
import subprocess
import time

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def peak_rss(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--label", help="print one bench line under this name instead of JSON")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    started = time.monotonic()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def ask(message):
        process.stdin.write((json.dumps(message) + "\n").encode())
        process.stdin.flush()
        if "id" not in message:
            return None
        while True:
            line = process.stdout.readline()
            if not line:
                raise SystemExit(f"{command[0]} closed its output")
            answer = json.loads(line)
            if answer.get("id") == message["id"]:
                return answer

    ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "mcp_bench", "version": "1"}}})
    start_ms = (time.monotonic() - started) * 1000
    ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
    ask({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    cpu_before = cpu_seconds(process.pid)
    latencies, answers = [], set()
    for number in range(args.calls):
        sent = time.monotonic()
        answer = ask({"jsonrpc": "2.0", "id": 2 + number, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "bench"}}})
        latencies.append((time.monotonic() - sent) * 1000)
        answers.add(json.dumps(answer.get("result", answer.get("error")), sort_keys=True))
    cpu = cpu_seconds(process.pid) - cpu_before
    rss = peak_rss(process.pid)
    process.stdin.close()
    process.wait(timeout=30)
    latencies.sort()
    report = {"start_ms": round(start_ms, 1), "call_ms_median": round(statistics.median(latencies), 2),
              "call_ms_p99": round(latencies[int(len(latencies) * 0.99) - 1], 2),
              "cpu_us_per_call": round(cpu / args.calls * 1e6), "peak_rss_kib": rss, "answers": sorted(answers)}
    if args.label is None:
        print(json.dumps(report))
        return
    print(f"{args.label:34s} start to initialize {report['start_ms']:7.1f} ms, call median {report['call_ms_median']:6.2f} ms "
          f"(p99 {report['call_ms_p99']:6.2f}), CPU {report['cpu_us_per_call']:5d} us/call, peak RSS {rss / 1024:6.1f} MiB, "
          f"answers {report['answers']}")


if __name__ == "__main__":
    main()
