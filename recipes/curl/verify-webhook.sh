#!/usr/bin/env bash
# Verifies a webhook delivery: X-Service-Signature (the spec's) and the Standard Webhooks headers
# (webhook-id, webhook-timestamp within 5 minutes, webhook-signature). bash, openssl 3. Run:
#   WEBHOOK_SECRET=whsec_... ./verify-webhook.sh body.json headers.txt
# body.json: the raw request body exactly as received; headers.txt: one "Name: value" line per header.
# Exit 0 and the event id when the delivery verifies, 1 and the reason otherwise.
set -euo pipefail
TOLERANCE_SECONDS=300

header() { sed -n "s/^$1: *//Ip" "$2" | tr -d '\r' | head -n 1; } # header NAME FILE (names are case-insensitive)
refuse() { echo "refused: $1" >&2; exit 1; }

# Shell has no constant-time comparison: compare HMACs of both values under a random key instead,
# so that how long the comparison takes says nothing about the expected value.
same() {
  local k
  k=$(openssl rand -hex 32)
  [[ $(printf '%s' "$1" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$k") == \
    $(printf '%s' "$2" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$k") ]]
}

# verify BODY_FILE HEADERS_FILE SECRET: returns only when the delivery is authentic and fresh.
verify() {
  local body=$1 headers=$2 secret=$3 expected given id ts sigs key want s
  # The spec's signature: hex HMAC-SHA256 of the body, keyed with the whole whsec_... string.
  # During a secret rotation X-Service-Signature stays keyed with the previous secret; X-Service-Signature-Next carries the new one's.
  expected=$(openssl dgst -sha256 -hmac "$secret" <"$body" | sed 's/^.* //')
  given=$(header X-Service-Signature "$headers")
  same "$given" "$expected" || same "$(header X-Service-Signature-Next "$headers")" "$expected" ||
    refuse 'X-Service-Signature does not match the body'

  # Standard Webhooks: v1,base64(HMAC-SHA256(id.timestamp.body)), keyed with the base64 part of the secret.
  id=$(header webhook-id "$headers") ts=$(header webhook-timestamp "$headers") sigs=$(header webhook-signature "$headers")
  [[ -n $id && -n $ts && -n $sigs ]] || refuse 'the webhook-* headers are missing'
  [[ $ts =~ ^[0-9]{1,12}$ ]] && (($(date +%s) - 10#$ts <= TOLERANCE_SECONDS && 10#$ts - $(date +%s) <= TOLERANCE_SECONDS)) ||
    refuse 'webhook-timestamp is outside the tolerance: a late or replayed delivery'
  key=$(printf '%s' "${secret#whsec_}" | base64 -d | od -An -v -tx1 | tr -d ' \n')
  want=$( { printf '%s.%s.' "$id" "$ts"; cat "$body"; } | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$key" -binary | base64)
  # The id and timestamp are signed: deduplicate on webhook-id (= X-Service-Event-Id), delivery is at-least-once.
  for s in $sigs; do # several during a rotation, space-separated
    [[ $s == v1,* ]] && same "${s#v1,}" "$want" && return 0
  done
  refuse 'webhook-signature does not match'
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  if (($# != 2)); then
    echo "usage: WEBHOOK_SECRET=whsec_... $0 body.json headers.txt" >&2
    exit 2
  fi
  verify "$1" "$2" "$WEBHOOK_SECRET"
  echo "verified $(header webhook-id "$2")"
fi
