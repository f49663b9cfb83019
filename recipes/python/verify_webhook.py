"""Verifies a webhook delivery: X-Service-Signature (the spec's) and the Standard Webhooks headers
(webhook-id, webhook-timestamp within 5 minutes, webhook-signature).

Python 3, standard library only. Run:
    WEBHOOK_SECRET=whsec_... python3 verify_webhook.py body.json headers.txt
body.json: the raw request body exactly as received; headers.txt: one "Name: value" line per header.
Exit 0 and the event id when the delivery verifies, 1 and the reason otherwise.
"""
import base64
import binascii
import hashlib
import hmac
import os
import re
import sys
import time

TOLERANCE_SECONDS = 300


class WebhookVerificationError(Exception):
    pass


def verify(raw_body: bytes, headers: dict[str, str], secret: str, now: float | None = None) -> None:
    """Raises WebhookVerificationError unless the delivery is authentic and fresh.

    Verify the raw bytes before any JSON parsing. headers: names in lower case.
    """
    # The spec's signature: hex HMAC-SHA256 of the body, keyed with the whole whsec_... string.
    # During a secret rotation X-Service-Signature stays keyed with the previous secret; X-Service-Signature-Next carries the new one's.
    expected = hmac.new(secret.encode(), raw_body, hashlib.sha256).hexdigest()
    given = [headers.get("x-service-signature", ""), headers.get("x-service-signature-next", "")]
    if not any(re.fullmatch(r"[0-9a-f]{64}", g) and hmac.compare_digest(g, expected) for g in given):
        raise WebhookVerificationError("X-Service-Signature does not match the body")

    # Standard Webhooks: v1,base64(HMAC-SHA256(id.timestamp.body)), keyed with the base64 part of the secret.
    msg_id, timestamp, signatures = (headers.get(h) for h in ("webhook-id", "webhook-timestamp", "webhook-signature"))
    if msg_id is None or timestamp is None or signatures is None:
        raise WebhookVerificationError("the webhook-* headers are missing")
    now = time.time() if now is None else now
    if not re.fullmatch(r"\d{1,12}", timestamp) or abs(now - int(timestamp)) > TOLERANCE_SECONDS:
        raise WebhookVerificationError("webhook-timestamp is outside the tolerance: a late or replayed delivery")
    key = base64.b64decode(secret.removeprefix("whsec_"))
    want = hmac.new(key, f"{msg_id}.{timestamp}.".encode() + raw_body, hashlib.sha256).digest()
    for candidate in signatures.split(" "):  # several during a rotation, space-separated
        version, _, b64 = candidate.partition(",")
        try:
            if version == "v1" and hmac.compare_digest(base64.b64decode(b64, validate=True), want):
                return  # the id and timestamp are signed: deduplicate on webhook-id, delivery is at-least-once
        except binascii.Error:
            continue
    raise WebhookVerificationError("webhook-signature does not match")


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: WEBHOOK_SECRET=whsec_... python3 verify_webhook.py body.json headers.txt", file=sys.stderr)
        return 2
    with open(sys.argv[1], "rb") as f:
        body = f.read()
    headers = {}
    with open(sys.argv[2], encoding="utf-8") as f:
        for line in f:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
    try:
        verify(body, headers, os.environ["WEBHOOK_SECRET"])
    except WebhookVerificationError as e:
        print(f"refused: {e}", file=sys.stderr)
        return 1
    print(f"verified {headers['webhook-id']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
