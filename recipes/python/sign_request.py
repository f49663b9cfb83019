"""Signs and sends a live write (sk_live_ keys): X-Timestamp and X-Signature, as version 2 (X-Signature-Version: 2,
the Idempotency-Key signed too), or as the spec's version 1 with SIGNATURE_VERSION=1.

Python 3, standard library only. Run:
    BASE_URL=... API_KEY=sk_live_... python3 sign_request.py METHOD PATH [BODY]
SIGN_ONLY=1 prints the headers instead of sending; TIMESTAMP=<Unix seconds> and IDEMPOTENCY_KEY=<key> sign with those:
together they reproduce a known signature (the worked examples of docs/guides/authentication.md) to compare with your own code.
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


def sign(method: str, path_with_query: str, body: bytes, secret: str, timestamp: int, idempotency_key: str | None) -> str:
    """hex HMAC-SHA256, keyed with the key's secret, over "v2" LF timestamp LF METHOD LF path-with-query LF
    idempotency_key LF body (version 2), or, when idempotency_key is None, timestamp LF METHOD LF path-with-query
    LF body (version 1, the spec's).

    path_with_query starts with /v1; body is the exact bytes sent.
    """
    signed = f"{timestamp}\n{method.upper()}\n{path_with_query}\n"
    if idempotency_key is not None:
        signed = f"v2\n{signed}{idempotency_key}\n"
    return hmac.new(secret.encode(), signed.encode() + body, hashlib.sha256).hexdigest()


def secret_of(api_key: str) -> str:
    """The secret of sk_live_<key id>_<secret>: the part after the last '_'."""
    return api_key.rsplit("_", 1)[1]


def path_of(url: str) -> str:
    """What is signed: the path as sent (starting with /v1) with its query string."""
    parts = urllib.parse.urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def signature_headers(method: str, url: str, body: bytes, api_key: str, idempotency_key: str, timestamp: int) -> dict[str, str]:
    """X-Signature-Version (unless SIGNATURE_VERSION=1), X-Timestamp and X-Signature of a live write."""
    if os.environ.get("SIGNATURE_VERSION") == "1":
        return {"X-Timestamp": str(timestamp), "X-Signature": sign(method, path_of(url), body, secret_of(api_key), timestamp, None)}
    signature = sign(method, path_of(url), body, secret_of(api_key), timestamp, idempotency_key)
    return {"X-Signature-Version": "2", "X-Timestamp": str(timestamp), "X-Signature": signature}


def send(method: str, url: str, body: bytes, api_key: str) -> tuple[int, str]:
    """One write, signed when the key is live. A retry of the same operation must resend the same headers and bytes."""
    idempotency_key = os.environ.get("IDEMPOTENCY_KEY") or str(uuid.uuid4())  # one per logical operation
    headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json", "Idempotency-Key": idempotency_key}
    if api_key.startswith("sk_live_"):
        headers |= signature_headers(method, url, body, api_key, idempotency_key, int(os.environ.get("TIMESTAMP") or time.time()))
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
        idempotency_key = os.environ.get("IDEMPOTENCY_KEY") or str(uuid.uuid4())
        headers = signature_headers(method, url, body, api_key, idempotency_key, timestamp)
        if "X-Signature-Version" in headers:
            headers = {"X-Signature-Version": "2", "Idempotency-Key": idempotency_key} | headers
        print("\n".join(f"{name}: {value}" for name, value in headers.items()))
        return 0
    status, text = send(method, url, body, api_key)
    print(status)
    print(text)
    return 0 if 200 <= status < 300 else 1


if __name__ == "__main__":
    sys.exit(main())
