#!/usr/bin/env python3
"""Verifies a Standard Webhooks signature with Python's own hmac, independently of reportd's code.

stdin: JSON {"secret": "whsec_...", "id": ..., "timestamp": ..., "signature": ..., "body": "..."}
stdout: "valid" or "invalid"; exit 0 / 1.
"""
import base64, hashlib, hmac, json, sys

req = json.load(sys.stdin)
key = base64.b64decode(req["secret"][len("whsec_"):])
signed = f'{req["id"]}.{req["timestamp"]}.{req["body"]}'.encode()
expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
ok = any(
    part.startswith("v1,") and hmac.compare_digest(part[3:], expected)
    for part in req["signature"].split(" ")
)
print("valid" if ok else "invalid")
sys.exit(0 if ok else 1)
