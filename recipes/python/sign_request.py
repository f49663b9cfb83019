"""Signs and sends a live write (sk_live_ keys): X-Timestamp and X-Signature, as the spec defines them.

Python 3, standard library only. Run:
    BASE_URL=... API_KEY=sk_live_... python3 sign_request.py METHOD PATH [BODY]
SIGN_ONLY=1 prints the two headers instead of sending, TIMESTAMP=<Unix seconds> signs at that time:
together they reproduce a known signature (the worked example of docs/guides/authentication.md) to compare with your own code.
"""
import hashlib
import hmac
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid


def sign(method: str, path_with_query: str, body: bytes, secret: str, timestamp: int) -> str:
    """hex HMAC-SHA256, keyed with the key's secret, over timestamp LF METHOD LF path-with-query LF body.

    path_with_query starts with /v1; body is the exact bytes sent.
    """
    message = f"{timestamp}\n{method.upper()}\n{path_with_query}\n".encode() + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def secret_of(api_key: str) -> str:
    """The secret of sk_live_<key id>_<secret>: the part after the last '_'."""
    return api_key.rsplit("_", 1)[1]


def path_of(url: str) -> str:
    """What is signed: the path as sent (starting with /v1) with its query string."""
    parts = urllib.parse.urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def send(method: str, url: str, body: bytes, api_key: str) -> tuple[int, str]:
    """One write, signed when the key is live. A retry of the same operation must resend the same headers and bytes."""
    headers = {
        "Authorization": f"Bearer {api_key}",
        "Content-Type": "application/json",
        "Idempotency-Key": str(uuid.uuid4()),
    }
    if api_key.startswith("sk_live_"):
        timestamp = int(time.time())
        headers["X-Timestamp"] = str(timestamp)
        headers["X-Signature"] = sign(method, path_of(url), body, secret_of(api_key), timestamp)
    request = urllib.request.Request(url, data=body, method=method.upper(), headers=headers)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as refused:  # 4xx/5xx: the body carries the error code
        return refused.code, refused.read().decode()


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: BASE_URL=... API_KEY=sk_live_... python3 sign_request.py METHOD PATH [BODY]", file=sys.stderr)
        return 2
    method, url = sys.argv[1].upper(), os.environ["BASE_URL"] + sys.argv[2]
    body = (sys.argv[3] if len(sys.argv) > 3 else "").encode()  # the bytes signed are the bytes sent
    api_key = os.environ["API_KEY"]
    if os.environ.get("SIGN_ONLY"):
        timestamp = int(os.environ.get("TIMESTAMP") or time.time())
        print(f"X-Timestamp: {timestamp}\nX-Signature: {sign(method, path_of(url), body, secret_of(api_key), timestamp)}")
        return 0
    status, text = send(method, url, body, api_key)
    print(status)
    print(text)
    return 0 if 200 <= status < 300 else 1


if __name__ == "__main__":
    sys.exit(main())
