#!/usr/bin/env bash
# Signs and sends a live write (sk_live_ keys): X-Timestamp and X-Signature, as the spec defines them.
# bash, curl, openssl. Run: BASE_URL=... API_KEY=sk_live_... ./sign-request.sh METHOD PATH [BODY]
# SIGN_ONLY=1 prints the two headers instead of sending, TIMESTAMP=<Unix seconds> signs at that time:
# together they reproduce a known signature (the worked example of docs/guides/authentication.md) to compare with your own code.
# Sourced (`. sign-request.sh`), it only defines sign and signed_curl.
set -euo pipefail

# sign METHOD PATH_WITH_QUERY BODY SECRET TIMESTAMP -> hex HMAC-SHA256 of "timestamp LF METHOD LF path LF body".
# PATH_WITH_QUERY starts with /v1; BODY is the exact text sent (printf '%s' adds no newline).
sign() {
  printf '%s\n%s\n%s\n%s' "$5" "$(printf '%s' "$1" | tr a-z A-Z)" "$2" "$3" | openssl dgst -sha256 -hmac "$4" | sed 's/^.* //'
}

# signed_curl METHOD URL BODY [curl options...]: one write, signed when API_KEY is live; prints the body, then the status.
signed_curl() {
  local method url=$2 body=$3 ts sig path
  method=$(printf '%s' "$1" | tr a-z A-Z)
  shift 3
  local headers=(-H "Authorization: Bearer $API_KEY" -H 'Content-Type: application/json'
    -H "Idempotency-Key: $(openssl rand -hex 16)") # a retry of the same operation keeps this key and the bytes
  if [[ $API_KEY == sk_live_* ]]; then
    path=/${url#*://*/} # what is signed: the path as sent, with its query string
    ts=$(date +%s)
    sig=$(sign "$method" "$path" "$body" "${API_KEY##*_}" "$ts") # the secret is the part after the last '_'
    headers+=(-H "X-Timestamp: $ts" -H "X-Signature: $sig")
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
    ts=${TIMESTAMP:-$(date +%s)}
    printf 'X-Timestamp: %s\nX-Signature: %s\n' "$ts" "$(sign "$1" "/${url#*://*/}" "$body" "${API_KEY##*_}" "$ts")"
    exit 0
  fi
  out=$(signed_curl "$1" "$url" "$body")
  status=${out##*$'\n'}
  printf '%s\n%s\n' "$status" "${out%$'\n'*}"
  [[ $status == 2?? ]]
fi
