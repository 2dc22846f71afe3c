"""A webhook receiver for trying matchlog's deliveries: checks each one's signature, answers its first
FAIL deliveries with 500 (to see the retries), and prints one JSON line per delivery: the status it
answered, whether the signature held, the two headers and the body. Usage:

    python examples/webhook_receiver.py PORT SECRET [FAIL]
"""

import hashlib
import hmac
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


def verified(secret: str, header: str, delivery: str, body: bytes, tolerance_s: int = 300) -> bool:
    fields = dict(part.split("=", 1) for part in header.split(","))
    signed = f"{fields['t']}.{delivery}.".encode() + body  # v2: the Matchlog-Delivery header is signed too
    mac = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return abs(time.time() - int(fields["t"])) <= tolerance_s and hmac.compare_digest(
        mac, fields.get("v2", "")
    )


class Receiver(BaseHTTPRequestHandler):
    secret, failing = "", 0

    def do_GET(self) -> None:  # anyone may ask whether it is up
        self.send_response(200)
        self.end_headers()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        status = 500 if Receiver.failing > 0 else 200
        Receiver.failing -= 1
        signature = self.headers["Matchlog-Signature"]
        logged = {
            "status": status,
            "verified": verified(Receiver.secret, signature, self.headers["Matchlog-Delivery"], body),
            "Matchlog-Signature": signature,
            "Matchlog-Delivery": self.headers["Matchlog-Delivery"],
            "body": json.loads(body),
        }
        print(json.dumps(logged), flush=True)
        self.send_response(status)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:  # the JSON lines above are the log
        pass


if __name__ == "__main__":
    port, Receiver.secret = int(sys.argv[1]), sys.argv[2]
    Receiver.failing = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    HTTPServer(("127.0.0.1", port), Receiver).serve_forever()
