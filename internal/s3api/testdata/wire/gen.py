#!/usr/bin/env python3
"""Writes s3-params.json: every request header and query parameter the S3
API model (botocore's service-2.json, as shipped with boto3) defines for
each operation. TestWireTableCoversS3 checks the router's wire table
against it. Regenerate after upgrading botocore:

    python3 internal/s3api/testdata/wire/gen.py
"""
import gzip
import json
import os

import botocore

base = os.path.join(os.path.dirname(botocore.__file__), "data", "s3", "2006-03-01")
path = os.path.join(base, "service-2.json")
model = json.load(gzip.open(path + ".gz")) if not os.path.exists(path) else json.load(open(path))

out = {"botocore": botocore.__version__, "operations": {}}
for name, op in sorted(model["operations"].items()):
    params = {"headers": [], "query": []}
    shape = op.get("input", {}).get("shape")
    if shape:
        for member in model["shapes"][shape]["members"].values():
            loc = member.get("location")
            if loc == "header":
                params["headers"].append(member["locationName"].lower())
            elif loc == "headers":  # a prefix: x-amz-meta-*
                params["headers"].append(member["locationName"].lower() + "*")
            elif loc == "querystring":
                params["query"].append(member["locationName"])
    params["headers"].sort()
    params["query"].sort()
    out["operations"][name] = params

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "s3-params.json"), "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
    f.write("\n")
