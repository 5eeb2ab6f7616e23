#!/usr/bin/env python3
"""Run inside `multiauth exec --server ecs|imds`: fetches credentials N times the way botocore
does (ContainerMetadataFetcher: one GET; InstanceMetadataFetcher: token PUT, role name,
credentials) from the endpoint exec named, and prints JSON: the median and worst
milliseconds per fetch, and the access key id last served.
Usage: bench_credential_endpoint.py ecs|imds N"""
import json
import os
import statistics
import sys
import time

from botocore.utils import ContainerMetadataFetcher, InstanceMetadataFetcher

mode, count = sys.argv[1], int(sys.argv[2])
times, key = [], None
for _ in range(count):
    start = time.perf_counter()
    if mode == "ecs":
        fetched = ContainerMetadataFetcher().retrieve_full_uri(
            os.environ["AWS_CONTAINER_CREDENTIALS_FULL_URI"], headers={"Authorization": os.environ["AWS_CONTAINER_AUTHORIZATION_TOKEN"]})
        key = fetched["AccessKeyId"]
    else:
        fetched = InstanceMetadataFetcher(timeout=1, num_attempts=1, base_url=os.environ["AWS_EC2_METADATA_SERVICE_ENDPOINT"]).retrieve_iam_role_credentials()
        key = fetched["access_key"]
    times.append((time.perf_counter() - start) * 1000)
times.sort()
print(json.dumps({"median_ms": statistics.median(times), "p99_ms": times[int(len(times) * 0.99) - 1], "access_key": key}))
