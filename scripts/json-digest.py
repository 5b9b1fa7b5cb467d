"""Prints a 12-hex-digit digest of the JSON result on stdin without its memory and
wall-clock fields (the identity scripts: gc-identity.sh, deferred-identity.sh)."""

import hashlib
import json
import sys


def strip(x):
    if isinstance(x, dict):
        return {
            k: strip(v)
            for k, v in x.items()
            if not any(w in k for w in ("memory", "wall", "elapsed", "rate"))
        }
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


print(
    hashlib.md5(
        json.dumps(strip(json.load(sys.stdin)), sort_keys=True).encode() + b"\n"
    ).hexdigest()[:12]
)
