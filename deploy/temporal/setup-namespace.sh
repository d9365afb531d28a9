#!/bin/sh
# Creates the namespace and registers this project's search attributes (the list must match
# src/shared/search-attributes.ts; a test checks it). Runs in the temporalio/admin-tools image
# once the server answers, and natively from `npm run cluster` (tools/temporal-server/cluster.ts)
# with the Temporal CLI; idempotent.
# Environment: TEMPORAL_ADDRESS (upstream CLI variable), TEMPORAL_NAMESPACE, NAMESPACE_RETENTION.
set -eu

NAMESPACE="${TEMPORAL_NAMESPACE:-default}"
RETENTION="${NAMESPACE_RETENTION:-72h}"
SEARCH_ATTRIBUTES="BookingPhase=Keyword SupplierBookingId=Int SupplierStatus=Keyword BookingOutcome=Keyword OrderId=Keyword SupplierAccount=Keyword CheckInDate=Datetime BookingDecidedAt=Datetime FreeCancellationUntil=Datetime Reconfirmation=Keyword OrderEventsDelivery=Keyword"

echo "Waiting for Temporal at ${TEMPORAL_ADDRESS} ..."
attempt=0
until temporal operator cluster health >/dev/null 2>&1; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge 60 ]; then echo "Temporal did not become healthy" >&2; exit 1; fi
  sleep 2
done

if temporal operator namespace describe --namespace "$NAMESPACE" >/dev/null 2>&1; then
  echo "Namespace $NAMESPACE exists"
else
  temporal operator namespace create --namespace "$NAMESPACE" --retention "$RETENTION"
  echo "Namespace $NAMESPACE created (retention $RETENTION)"
fi

# A new namespace reaches each frontend's namespace cache some seconds after it is created (with
# several server nodes behind a balancer, each call may meet another frontend): retried.
attempt=0
until existing="$(temporal operator search-attribute list --namespace "$NAMESPACE" 2>&1)"; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge 60 ]; then echo "Namespace $NAMESPACE not usable: $existing" >&2; exit 1; fi
  sleep 1
done
for pair in $SEARCH_ATTRIBUTES; do
  name="${pair%%=*}"
  type="${pair#*=}"
  if printf '%s\n' "$existing" | grep -qw "$name"; then
    echo "Search attribute $name exists"
    continue
  fi
  attempt=0
  until out="$(temporal operator search-attribute create --namespace "$NAMESPACE" --name "$name" --type "$type" 2>&1)"; do
    # Registered by an earlier attempt whose answer was lost: done.
    if temporal operator search-attribute list --namespace "$NAMESPACE" 2>/dev/null | grep -qw "$name"; then break; fi
    attempt=$((attempt + 1))
    if [ "$attempt" -ge 60 ]; then echo "Search attribute $name not registered: $out" >&2; exit 1; fi
    sleep 1
  done
  echo "Search attribute $name ($type) registered"
done

# Usable once the server's search attribute cache has them (this setup does not force a refresh
# on every read, which Temporal says never to do in production): a query naming every one of them
# is accepted. Workers start after this script, so their first upsert finds them.
query=""
for pair in $SEARCH_ATTRIBUTES; do
  query="${query:+$query AND }${pair%%=*} IS NOT NULL"
done
attempt=0
until out="$(temporal workflow count --namespace "$NAMESPACE" --query "$query" 2>&1)"; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge 180 ]; then echo "Search attributes not usable on $NAMESPACE: $out" >&2; exit 1; fi
  sleep 1
done
echo "Search attributes usable on $NAMESPACE"
