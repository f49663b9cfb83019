"""Signs the payment confirmation of a booking (compact JWS, ES256, the key's kid) and books the quote with it.

Python 3 and `cryptography` (38 or newer). Run:
    BASE_URL=... API_KEY=sk_... PAYMENT_KEY=key.json python3 confirm_payment.py QUOTE_ID AMOUNT PAYMENT_REFERENCE booking.json
PAYMENT_KEY: the private JWK (the file `admin payment-key:generate --json` prints, or a bare JWK with kid),
or a PKCS#8 PEM file ("BEGIN PRIVATE KEY") with PAYMENT_KID naming the registered key.
booking.json: the POST /bookings body without payment_confirmation (quote_id, partner_reference, contact, travelers).
"""
import base64
import json
import os
import sys
from datetime import datetime, timezone

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from sign_request import send


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def confirm_payment(key: ec.EllipticCurvePrivateKey, kid: str, quote_id: str, amount: str, payment_reference: str, paid_at: datetime) -> str:
    """The compact JWS the service expects in payment_confirmation: {"alg":"ES256","kid":...} over the claims."""
    header = {"alg": "ES256", "kid": kid}
    claims = {
        "quote_id": quote_id,
        "amount": {"amount": amount, "currency": "MAD"},  # the quote's net_amount, exactly
        "payment_reference": payment_reference,
        "paid_at": paid_at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    compact = {"separators": (",", ":")}
    signing_input = f"{b64url(json.dumps(header, **compact).encode())}.{b64url(json.dumps(claims, **compact).encode())}"
    der = key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256()))
    # JWS wants R||S, 32 bytes each, not the DER that cryptography returns.
    r, s = decode_dss_signature(der)
    return f"{signing_input}.{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def load_key(text: str) -> tuple[ec.EllipticCurvePrivateKey, str | None]:
    """A P-256 private key and its kid, from a JWK (bare or under private_jwk) or a PKCS#8 PEM (no kid)."""
    if "-----BEGIN" in text:
        return serialization.load_pem_private_key(text.encode(), password=None), None
    jwk = json.loads(text)
    jwk = jwk.get("private_jwk", jwk)
    d = int.from_bytes(base64.urlsafe_b64decode(jwk["d"] + "=" * (-len(jwk["d"]) % 4)), "big")
    return ec.derive_private_key(d, ec.SECP256R1()), jwk.get("kid")


def main() -> int:
    if len(sys.argv) != 5:
        print("usage: BASE_URL=... API_KEY=... PAYMENT_KEY=file python3 confirm_payment.py QUOTE_ID AMOUNT PAYMENT_REFERENCE booking.json", file=sys.stderr)
        return 2
    quote_id, amount, payment_reference, booking_file = sys.argv[1:]
    with open(os.environ["PAYMENT_KEY"]) as f:
        key, kid = load_key(f.read())
    kid = os.environ.get("PAYMENT_KID") or kid
    # paid_at: when the bank collected the payment; the service takes it up to 24 h old.
    jws = confirm_payment(key, kid, quote_id, amount, payment_reference, datetime.now(timezone.utc))
    with open(booking_file) as f:
        booking = json.load(f)
    booking["payment_confirmation"] = jws
    status, text = send("POST", os.environ["BASE_URL"] + "/bookings", json.dumps(booking).encode(), os.environ["API_KEY"])
    print(status)
    print(text)
    return 0 if 200 <= status < 300 else 1


if __name__ == "__main__":
    sys.exit(main())
