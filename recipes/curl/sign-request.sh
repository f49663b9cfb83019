#!/usr/bin/env bash
# Signs and sends a live write (sk_live_ keys): X-Timestamp and X-Signature, as version 2 (X-Signature-Version: 2,
# the Idempotency-Key signed too), or as the spec's version 1 with SIGNATURE_VERSION=1.
# bash, curl, openssl. Run: BASE_URL=... API_KEY=sk_live_... ./sign-request.sh METHOD PATH [BODY]
# SIGN_ONLY=1 prints the headers instead of sending; TIMESTAMP=<Unix seconds> and IDEMPOTENCY_KEY=<key> sign with those:
# together they reproduce a known signature (the worked examples of docs/guides/authentication.md) to compare with your own code.
# Sourced (`. sign-request.sh`), it only defines sign and signed_curl.
set -euo pipefail

# sign METHOD PATH_WITH_QUERY BODY SECRET TIMESTAMP [IDEMPOTENCY_KEY] -> hex HMAC-SHA256 of
# "v2" LF timestamp LF METHOD LF path LF idempotency-key LF body (version 2), or, without IDEMPOTENCY_KEY,
# of timestamp LF METHOD LF path LF body (version 1, the spec's).
# PATH_WITH_QUERY starts with /v1; BODY is the exact text sent (printf '%s' adds no newline).
sign() {
  local method
  method=$(printf '%s' "$1" | tr a-z A-Z)
  if (($# > 5)); then
    printf 'v2\n%s\n%s\n%s\n%s\n%s' "$5" "$method" "$2" "$6" "$3"
  else
    printf '%s\n%s\n%s\n%s' "$5" "$method" "$2" "$3"
  fi | openssl dgst -sha256 -hmac "$4" | sed 's/^.* //'
}

# signature_headers METHOD PATH_WITH_QUERY BODY TIMESTAMP IDEMPOTENCY_KEY -> the curl -H arguments of a live write, one a line.
signature_headers() {
  if [[ ${SIGNATURE_VERSION:-2} == 1 ]]; then
    printf '%s\n' "X-Timestamp: $4" "X-Signature: $(sign "$1" "$2" "$3" "${API_KEY##*_}" "$4")" # the secret: after the last '_'
  else
    printf '%s\n' 'X-Signature-Version: 2' "X-Timestamp: $4" "X-Signature: $(sign "$1" "$2" "$3" "${API_KEY##*_}" "$4" "$5")"
  fi
}

# signed_curl METHOD URL BODY [curl options...]: one write, signed when API_KEY is live; prints the body, then the status.
signed_curl() {
  local method url=$2 body=$3 key line
  method=$(printf '%s' "$1" | tr a-z A-Z)
  shift 3
  key=${IDEMPOTENCY_KEY:-$(openssl rand -hex 16)} # a retry of the same operation keeps this key and the bytes
  local headers=(-H "Authorization: Bearer $API_KEY" -H 'Content-Type: application/json' -H "Idempotency-Key: $key")
  if [[ $API_KEY == sk_live_* ]]; then
    # What is signed: the path as sent, with its query string.
    while IFS= read -r line; do headers+=(-H "$line"); done < <(signature_headers "$method" "/${url#*://*/}" "$body" "${TIMESTAMP:-$(date +%s)}" "$key")
  fi
  # --data-binary @- sends the bytes as given (-d would strip newlines, and a body starting with @ would name a file).
  printf '%s' "$body" | curl -sS -X "$method" "${headers[@]}" --data-binary @- -w '\n%{http_code}' "$@" "$url"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  if (($# < 2)); then
    echo "usage: BASE_URL=... API_KEY=sk_live_... $0 METHOD PATH [BODY]" >&2
    exit 2
  fi
  url=$BASE_URL$2 body=${3:-}
  if [[ -n ${SIGN_ONLY:-} ]]; then
    key=${IDEMPOTENCY_KEY:-$(openssl rand -hex 16)}
    headers=$(signature_headers "$1" "/${url#*://*/}" "$body" "${TIMESTAMP:-$(date +%s)}" "$key")
    [[ ${SIGNATURE_VERSION:-2} == 1 ]] || headers=$(printf 'X-Signature-Version: 2\nIdempotency-Key: %s\n%s' "$key" "${headers#*$'\n'}")
    printf '%s\n' "$headers"
    exit 0
  fi
  out=$(signed_curl "$1" "$url" "$body")
  status=${out##*$'\n'}
  printf '%s\n%s\n' "$status" "${out%$'\n'*}"
  [[ $status == 2?? ]]
fi
