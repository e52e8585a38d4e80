"""A webhook receiver in Python with only the standard library.

    WEBHOOK_SECRET=whsec_... PORT=8080 python3 webhook_receiver.py

It checks the Standard Webhooks signature (HMAC-SHA256 over "id.timestamp.body"
with the base64 key after "whsec_"), refuses timestamps more than 5 minutes
away, answers 400 to anything that fails, and handles each event id once
(retries and replays reuse the id).
"""
import base64
import hashlib
import hmac
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = base64.b64decode(os.environ["WEBHOOK_SECRET"].removeprefix("whsec_"))
TOLERANCE_SECONDS = 5 * 60
seen = set()  # use your database in production: ids must outlive a restart


def verify(headers, body):
    """Returns the event if the request is authentic, else None."""
    msg_id = headers.get("webhook-id", "")
    timestamp = headers.get("webhook-timestamp", "")
    signatures = headers.get("webhook-signature", "")
    if not msg_id or not timestamp.isdigit():
        return None
    if abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
        return None
    signed = f"{msg_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(SECRET, signed, hashlib.sha256).digest()).decode()
    # Several signatures during a secret rotation, separated by spaces: "v1,<base64> v1,<base64>".
    for candidate in signatures.split(" "):
        version, _, signature = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(signature, expected):
            return json.loads(body)
    return None


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        event = verify(self.headers, body)
        if event is None:
            self.send_response(400)
            self.end_headers()
            return
        msg_id = self.headers["webhook-id"]
        if msg_id not in seen:
            seen.add(msg_id)
            # Hand the event to your own queue here and answer quickly (the sender waits at most 15 s).
            print(json.dumps({"verified": True, "id": msg_id, "type": event["type"], "insight": event["data"].get("id"), "title": event["data"].get("title")}), flush=True)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass  # one JSON line per event is all this example prints


server = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "8080"))), Receiver)
print(json.dumps({"listening": server.server_address[1]}), flush=True)
try:
    server.serve_forever()
except KeyboardInterrupt:
    sys.exit(0)
