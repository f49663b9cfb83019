#!/usr/bin/env bash
# Signs the payment confirmation of a booking (compact JWS, ES256, the key's kid) and books the quote with it.
# bash, curl, openssl 3. Run:
#   BASE_URL=... API_KEY=sk_... PAYMENT_KEY=key.json ./confirm-payment.sh QUOTE_ID AMOUNT PAYMENT_REFERENCE booking.json
# PAYMENT_KEY: the private JWK (the file `admin payment-key:generate --json` prints, or a bare JWK with kid),
# or a PEM private key file with PAYMENT_KID naming the registered key.
# booking.json: the POST /bookings body without payment_confirmation (quote_id, partner_reference, contact, travelers).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/sign-request.sh" # signed_curl: live writes are signed

b64url() { base64 | tr -d '\n=' | tr '/+' '_-'; }
from_hex() { printf "$(sed 's/../\\x&/g')"; } # hex on stdin -> bytes (coreutils has no xxd)
json_field() { tr -d '\n' <"$1" | sed -n "s/.*\"$2\" *: *\"\\([^\"]*\\)\".*/\\1/p"; }

# confirm_payment KEY_FILE KID QUOTE_ID AMOUNT PAYMENT_REFERENCE PAID_AT -> the compact JWS for payment_confirmation.
# KEY_FILE: a PEM private key, or the DER of one (-keyform is guessed by openssl 3).
confirm_payment() {
  local header claims input der r s
  header=$(printf '{"alg":"ES256","kid":"%s"}' "$2" | b64url)
  claims=$(printf '{"quote_id":"%s","amount":{"amount":"%s","currency":"MAD"},"payment_reference":"%s","paid_at":"%s"}' "$3" "$4" "$5" "$6" | b64url)
  input=$header.$claims
  der=$(printf '%s' "$input" | openssl dgst -sha256 -sign "$1" | openssl asn1parse -inform DER)
  # openssl signs in DER (SEQUENCE of two INTEGERs); JWS wants R||S, each left-padded to 32 bytes.
  r=$(sed -n '2s/.*INTEGER *://p' <<<"$der") s=$(sed -n '3s/.*INTEGER *://p' <<<"$der")
  printf '%s.%s' "$input" "$(printf '%064s%064s' "$r" "$s" | tr ' ' 0 | from_hex | b64url)"
}

# A JWK's "d" as an SEC1 DER key openssl can sign with: SEQUENCE {1, OCTET STRING d, [0] OID prime256v1}.
jwk_to_der() {
  local d
  d=$(json_field "$1" d | tr '_-' '/+')
  d=$(printf '%s%s' "$d" "$(printf '%*s' $(((4 - ${#d} % 4) % 4)) '' | tr ' ' =)" | base64 -d | od -An -v -tx1 | tr -d ' \n')
  printf '30310201010420%sa00a06082a8648ce3d030107' "$d" | from_hex >"$2"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  if (($# != 4)); then
    echo "usage: BASE_URL=... API_KEY=... PAYMENT_KEY=file $0 QUOTE_ID AMOUNT PAYMENT_REFERENCE booking.json" >&2
    exit 2
  fi
  key=$PAYMENT_KEY
  if ! grep -q -- '-----BEGIN' "$key"; then
    key=$(mktemp)
    trap 'rm -f "$key"' EXIT
    jwk_to_der "$PAYMENT_KEY" "$key"
  fi
  kid=${PAYMENT_KID:-$(json_field "$PAYMENT_KEY" kid)}
  # paid_at: when the bank collected the payment; the service takes it up to 24 h old.
  jws=$(confirm_payment "$key" "$kid" "$1" "$2" "$3" "$(date -u +%Y-%m-%dT%H:%M:%SZ)")
  booking=$(<"$4")
  booking=${booking%\}*}
  out=$(signed_curl POST "$BASE_URL/bookings" "$booking,\"payment_confirmation\":\"$jws\"}")
  status=${out##*$'\n'}
  printf '%s\n%s\n' "$status" "${out%$'\n'*}"
  [[ $status == 2?? ]]
fi
