#!/usr/bin/env python3
"""Parses a Prometheus text exposition strictly with prometheus_client's own parser (an
independent check that /metrics is well formed) and prints JSON: every sample as
"name{label=value,...}" (labels sorted) mapped to its value. Usage: prometheus_parse.py URL"""
import json
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

with urllib.request.urlopen(sys.argv[1], timeout=10) as response:
    text = response.read().decode()
samples = {}
for family in text_string_to_metric_families(text):
    for sample in family.samples:
        labels = ",".join(f"{key}={value}" for key, value in sorted(sample.labels.items()))
        samples[f"{sample.name}{{{labels}}}"] = str(sample.value)
print(json.dumps(samples))
