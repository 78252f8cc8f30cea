#!/usr/bin/env bash
# Stripe's own API mock, stripe-mock, for the card checkout tests
# (query/paywall/checkout, internal/interop/browser): a Go program from the
# module proxy, installed into $(go env GOPATH)/bin at the pinned version
# when it is missing or another version. Fails loudly when it cannot.
set -euo pipefail
want=v0.203.0
bin="$(go env GOPATH)/bin/stripe-mock"
if [ -x "$bin" ] && go version -m "$bin" 2>/dev/null | grep -Eq "^[[:space:]]+mod[[:space:]]+github.com/stripe/stripe-mock[[:space:]]+$want([[:space:]]|$)"; then
  exit 0
fi
echo "stripe-mock.sh: installing github.com/stripe/stripe-mock@$want"
go install "github.com/stripe/stripe-mock@$want" || { echo "stripe-mock.sh: cannot go install github.com/stripe/stripe-mock@$want" >&2; exit 1; }
go version -m "$bin" | grep -q "$want" || { echo "stripe-mock.sh: $bin is not $want after go install" >&2; exit 1; }
