#!/usr/bin/env python3
"""Re-frames the cryptofeed format-1 OKX recording in this folder (OKX.0 +
OKX.ws.1.0) as a cryptofeed format-2 JSONL recording (README.md says why).

    python3 make_jsonl.py | gzip -n > cryptofeed_OKX_format2.DERIVED.jsonl.gz

Every message is carried unchanged (the JSON string of each record's "data"
is the recorded text); only the framing changes.
"""
import json, re, sys

def rec(**kv):
    parts = []
    for k, v in kv.items():
        if k == "ts":
            parts.append('"ts":' + v)  # the recorded decimal text, unchanged
        else:
            parts.append(json.dumps(k) + ":" + json.dumps(v, separators=(",", ":")))
    return "{" + ",".join(parts) + "}"

out = sys.stdout
out.write('{"t":"header","format":2,"exchange":"OKX","converted_from":1}\n')
for line in open("OKX.0", encoding="utf-8"):
    line = line.rstrip("\n")
    m = re.match(r"^(\S+) -> ([0-9.]+): (.*)$", line)
    if m:
        out.write(rec(t="http", conn="OKX.http.sync", ts=m.group(2), url=m.group(1), data=m.group(3)) + "\n")
for line in open("OKX.ws.1.0", encoding="utf-8"):
    line = line.rstrip("\n")
    m = re.match(r"^(\S+) <-> ([0-9.]+)$", line)
    if m:
        out.write(rec(t="connect", conn="OKX.ws.1", ts=m.group(2), addr=m.group(1)) + "\n")
        continue
    m = re.match(r"^(\S+) <- ([0-9.]+): (.*)$", line)
    if m:
        out.write(rec(t="send", conn="OKX.ws.1", ts=m.group(2), addr=m.group(1), data=m.group(3)) + "\n")
        continue
    m = re.match(r"^([0-9.]+): (.*)$", line)
    if m:
        out.write(rec(t="recv", conn="OKX.ws.1", ts=m.group(1), data=m.group(2)) + "\n")
        continue
    raise SystemExit("unrecognized line: " + line[:80])
