#!/usr/bin/env python3
"""The RDS and EKS tokens botocore makes, as the AWS CLI does, for fixed credentials and a
frozen clock: the independent side of the presigned-token tests.

RDS: botocore's own `generate_db_auth_token`. EKS: the AWS CLI's `get-token` recipe (awscli's
customizations/eks/get_token.py): an STS client at the regional endpoint, the cluster name
put in `x-k8s-aws-id` before signing, `generate_presigned_url('get_caller_identity', 60 s)`,
then `k8s-aws-v1.` and unpadded base64url.

Usage: botocore_tokens.py DATE REGION HOST PORT USER CLUSTER KEY_ID SECRET TOKEN
(DATE as YYYYMMDDTHHMMSSZ; the credentials are test values). Prints {"rds": TOKEN, "eks": TOKEN}."""
import base64
import datetime
import json
import os
import sys

# With awscrt installed, botocore signs presigned URLs through aws-c-auth, whose clock
# freeze_clock cannot reach; the Python signer is botocore's own.
os.environ["BOTO_DISABLE_CRT"] = "true"
import botocore.session  # noqa: E402

from botocore_stages import freeze_clock  # noqa: E402

stamp, region, host, port, user, cluster, key_id, secret, token = sys.argv[1:10]
freeze_clock(datetime.datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc))
session = botocore.session.get_session()
session.set_credentials(key_id, secret, token)
rds = session.create_client("rds", region_name=region)
rds_token = rds.generate_db_auth_token(DBHostname=host, Port=int(port), DBUsername=user, Region=region)

sts = session.create_client("sts", region_name=region, endpoint_url=f"https://sts.{region}.amazonaws.com")


def keep_cluster(params, context, **kwargs):
    if "ClusterName" in params:
        context["eks_cluster"] = params.pop("ClusterName")


def add_header(request, **kwargs):
    if "eks_cluster" in request.context:
        request.headers["x-k8s-aws-id"] = request.context["eks_cluster"]


sts.meta.events.register("provide-client-params.sts.GetCallerIdentity", keep_cluster)
sts.meta.events.register("before-sign.sts.GetCallerIdentity", add_header)
url = sts.generate_presigned_url("get_caller_identity", Params={"ClusterName": cluster}, ExpiresIn=60, HttpMethod="GET")
eks_token = "k8s-aws-v1." + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")
print(json.dumps({"rds": rds_token, "eks": eks_token}))
