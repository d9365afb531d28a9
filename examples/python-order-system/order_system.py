"""A small order system in Python that books through hotel-booking-orchestrator.

It speaks only the published contract: the workflow and message names, the JSON Schemas under
contract/, and the payload encryption of docs/payload-encryption.md. One workflow holds an order,
id `booking-<orderId>`, from the first call to check-out. The program books an order and learns
the decision in one call (update-with-start of `outcome`), reads its state, starts the same order
again with the SDK's defaults, cancels a pending order and the confirmed one by order id (one
`cancel` update each), shows how a bad input is refused, retries decided orders of each outcome
(one decision per order id), and cancels a closed order by its id with a start of the order id
alone. It prints one JSON document.

    python order_system.py --instant-option OPT --pending-option OPT [--not-available-option OPT]
        [--not-confirmed-option OPT] [--policy-change-option OPT] [--order-prefix P]

Environment: TEMPORAL_ADDRESS (localhost:7233), TEMPORAL_NAMESPACE (default), TEMPORAL_TASK_QUEUE
(hotel-booking), PAYLOAD_ENCRYPTION_KEYS (keyId:base64,...; unset: the public development key), and
the product's connection settings, read the same way: TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY,
TEMPORAL_TLS_CA (each a PEM path or the PEM text, or the *_FILE variant with a path),
TEMPORAL_TLS_SERVER_NAME, TEMPORAL_TLS, TEMPORAL_API_KEY (or TEMPORAL_API_KEY_FILE).
"""

import argparse
import asyncio
import base64
import hashlib
import json
import os
import pathlib
import sys
import time
from typing import Any, Dict, List, Optional, Sequence

import jsonschema
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from temporalio.api.common.v1 import Payload
from temporalio.client import Client, WithStartWorkflowOperation, WorkflowUpdateFailedError
from temporalio.service import TLSConfig
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.converter import (
    DataConverter,
    DefaultFailureConverterWithEncodedAttributes,
    PayloadCodec,
)

CONTRACT = pathlib.Path(__file__).resolve().parents[2] / "contract"
ENCRYPTED = b"binary/encrypted"
KEY_ID = "encryption-key-id"


def development_key() -> Dict[str, bytes]:
    """The orchestrator's public development key (never for real data)."""
    seed = b"hotel-booking-orchestrator: dev-insecure payload key, public, never for real data"
    return {"dev-insecure": hashlib.sha256(seed).digest()}


def keys_from_env() -> Dict[str, bytes]:
    spec = os.environ.get("PAYLOAD_ENCRYPTION_KEYS", "")
    if not spec.strip():
        return development_key()
    keys: Dict[str, bytes] = {}
    for entry in spec.replace(",", " ").split():
        key_id, material = entry.split(":", 1)
        keys[key_id] = base64.b64decode(material)
    return keys


class EncryptionCodec(PayloadCodec):
    """AES-256-GCM as in docs/payload-encryption.md: the first key encrypts, any key decrypts."""

    def __init__(self, keys: Dict[str, bytes]) -> None:
        self.keys = keys
        self.key_id = next(iter(keys))

    async def encode(self, payloads: Sequence[Payload]) -> List[Payload]:
        out = []
        for p in payloads:
            iv = os.urandom(12)
            sealed = AESGCM(self.keys[self.key_id]).encrypt(iv, p.SerializeToString(), None)
            out.append(
                Payload(
                    metadata={"encoding": ENCRYPTED, KEY_ID: self.key_id.encode()},
                    data=iv + sealed,
                )
            )
        return out

    async def decode(self, payloads: Sequence[Payload]) -> List[Payload]:
        out = []
        for p in payloads:
            if p.metadata.get("encoding") != ENCRYPTED:
                out.append(p)
                continue
            key = self.keys[p.metadata[KEY_ID].decode()]
            plain = AESGCM(key).decrypt(p.data[:12], p.data[12:], None)
            out.append(Payload.FromString(plain))
        return out


def schema(name: str) -> Dict[str, Any]:
    return json.loads((CONTRACT / name).read_text())


def problems(document: Any, schema_file: str) -> List[str]:
    """What the published JSON Schema finds wrong with a document, field by field."""
    validator = jsonschema.Draft202012Validator(schema(schema_file))
    return sorted(
        f"{'.'.join(str(p) for p in e.absolute_path) or '(input)'}: {e.message}"
        for e in validator.iter_errors(document)
    )


def booking_input(order_id: str, option_id: str) -> Dict[str, Any]:
    # JSON null in optional fields, the way Python's json module sends an unset value.
    return {
        "orderId": order_id,
        "optionId": option_id,
        "rooms": [{"firstName": "Test", "lastName": "Guest", "notes": None}],
        "contact": {"phonePrefix": "+39", "phone": "3330000000", "email": None},
        "customFields": {"custom_field_1": "python-order-system", "custom_field_2": None},
        "expectedPrice": None,
        "priceChangePolicy": None,
        "polling": {"initialInterval": "50ms", "maximumInterval": "200ms", "backoffCoefficient": None},
    }


def start_of(queue: str, sent: Dict[str, Any]) -> WithStartWorkflowOperation:
    """The order's start, to send an update with: the running workflow takes the update, else a
    new run does (it answers a decided order's decision and books nothing)."""
    return WithStartWorkflowOperation(
        "bookRoom",
        sent,
        id=f"booking-{sent['orderId']}",
        task_queue=queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
    )


async def book(client: Client, queue: str, sent: Dict[str, Any]) -> Any:
    """Starts the order's workflow (or finds it running) and returns the decision: one call.
    Safe to retry at any time: a decided order answers its decision and books nothing."""
    return await client.execute_update_with_start_workflow(
        "outcome", start_workflow_operation=start_of(queue, sent)
    )


async def cancel(client: Client, queue: str, order_id: str, reason: Optional[str]) -> Any:
    """Cancels an order by its id, open or closed: the cancel update with a start of the order id
    alone (which never books)."""
    return await client.execute_update_with_start_workflow(
        "cancel", {"reason": reason}, start_workflow_operation=start_of(queue, {"orderId": order_id})
    )


async def wait_for_phase(handle: Any, phase: str, seconds: float = 30) -> Dict[str, Any]:
    until = time.monotonic() + seconds
    while True:
        state = await handle.query("bookingState")
        if state["phase"] == phase or time.monotonic() > until:
            return state
        await asyncio.sleep(0.1)


def setting(name: str) -> Optional[bytes]:
    """A PEM or key setting: NAME (a path, or the text itself) or NAME_FILE (a path)."""
    path = os.environ.get(f"{name}_FILE")
    if path:
        return pathlib.Path(path).read_bytes()
    value = os.environ.get(name)
    if not value:
        return None
    if "-----BEGIN" not in value and pathlib.Path(value).is_file():
        return pathlib.Path(value).read_bytes()
    return value.encode()


def connection_settings() -> Dict[str, Any]:
    """TLS and API key from the product's variables, as its own processes read them."""
    cert = setting("TEMPORAL_TLS_CERT")
    key = setting("TEMPORAL_TLS_KEY")
    ca = setting("TEMPORAL_TLS_CA")
    api_key = setting("TEMPORAL_API_KEY")
    server_name = os.environ.get("TEMPORAL_TLS_SERVER_NAME")
    asked = os.environ.get("TEMPORAL_TLS")
    tls_on = asked == "true" or (asked != "false" and any([cert, key, ca, server_name, api_key]))
    out: Dict[str, Any] = {}
    if tls_on:
        out["tls"] = TLSConfig(
            server_root_ca_cert=ca,
            client_cert=cert,
            client_private_key=key,
            domain=server_name,
        )
    if api_key:
        out["api_key"] = api_key.decode().strip()
    return out


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--instant-option", required=True)
    parser.add_argument("--pending-option", required=True)
    parser.add_argument("--not-available-option")
    parser.add_argument("--not-confirmed-option")
    parser.add_argument("--policy-change-option")
    parser.add_argument("--order-prefix", default=f"py-{int(time.time())}")
    parser.add_argument("--supplier-account", help="a supplier account the workers configure")
    args = parser.parse_args()

    client = await Client.connect(
        os.environ.get("TEMPORAL_ADDRESS", "localhost:7233"),
        namespace=os.environ.get("TEMPORAL_NAMESPACE", "default"),
        data_converter=DataConverter(
            payload_codec=EncryptionCodec(keys_from_env()),
            failure_converter_class=DefaultFailureConverterWithEncodedAttributes,
        ),
        **connection_settings(),
    )
    queue = os.environ.get("TEMPORAL_TASK_QUEUE", "hotel-booking")
    report: Dict[str, Any] = {}

    # 1. Book an order and learn the decision in one call; read its state (now its guard's).
    order = f"{args.order_prefix}-a"
    sent = booking_input(order, args.instant_option)
    report["inputProblems"] = problems(sent, "bookRoom.input.schema.json")
    decision = await book(client, queue, sent)
    handle = client.get_workflow_handle(f"booking-{order}")
    state = await handle.query("bookingState")
    report["booked"] = {
        "decision": decision,
        "decisionProblems": problems(decision, "bookRoom.outcome.update-result.schema.json"),
        "state": state,
        "stateProblems": problems(state, "bookRoom.bookingState.query.schema.json"),
    }

    # 2. The same order started again, as a retry after a timeout does: with the SDK's defaults
    #    the running workflow's id is taken; the same one call answers the same decision.
    try:
        await client.start_workflow("bookRoom", sent, id=f"booking-{order}", task_queue=queue)
        report["startedAgain"] = {"alreadyStarted": False}
    except WorkflowAlreadyStartedError:
        report["startedAgain"] = {"alreadyStarted": True}
    report["startedAgain"]["decision"] = await book(client, queue, sent)

    # 3. Another order, cancelled by order id while the supplier has not confirmed it yet.
    pending = f"{args.order_prefix}-b"
    pending_handle = await client.start_workflow(
        "bookRoom", booking_input(pending, args.pending_option), id=f"booking-{pending}", task_queue=queue
    )
    await wait_for_phase(pending_handle, "AWAITING_CONFIRMATION")
    # An update the workflow refuses comes back as an update failure with its reason.
    try:
        await pending_handle.execute_update("approvePriceChange", {"approve": True})
        report["refusedUpdate"] = None
    except WorkflowUpdateFailedError as err:
        report["refusedUpdate"] = str(err.cause)
    answer = await pending_handle.execute_update("cancel", {"reason": None})
    report["cancelledPending"] = {
        "updateAnswer": answer,
        "updateAnswerProblems": problems(answer, "bookRoom.cancel.update-result.schema.json"),
        "decision": await pending_handle.execute_update("outcome"),
    }

    # 4. The confirmed order, cancelled by order id after its decision: the same one update.
    answer = await handle.execute_update("cancel", {"reason": "the guest cancelled"})
    result = await handle.result()
    report["cancelledConfirmed"] = {
        "updateAnswer": answer,
        "updateAnswerProblems": problems(answer, "bookRoom.cancel.update-result.schema.json"),
        "result": result,
        "resultProblems": problems(result, "bookRoom.result.schema.json"),
    }

    # 5. A bad input: the schema names the fields; the workflow, if started anyway, refuses it
    #    before any supplier call, naming the same fields.
    bad_order = f"{args.order_prefix}-c"
    bad = booking_input(bad_order, args.instant_option)
    bad["contact"]["phone"] = "12"
    bad["rooms"] = []
    handle = await client.start_workflow(
        "bookRoom", bad, id=f"booking-{bad_order}", task_queue=queue
    )
    report["refused"] = {
        "schemaProblems": problems(bad, "bookRoom.input.schema.json"),
        "result": await handle.result(),
    }

    # 6. Decided orders of each outcome, retried as an order system retries: with the SDK's
    #    defaults (a plain start after the workflow closed), and the one call again. Each answers
    #    the first decision; none books again (the test counts the supplier's bookings).
    report["retried"] = {}
    outcomes = {
        "NOT_AVAILABLE": (args.not_available_option, {}),
        "NOT_CONFIRMED": (args.not_confirmed_option, {}),
        "PRICE_REJECTED": (args.policy_change_option, {"priceChangePolicy": {"approvalTimeout": "300ms"}}),
        "CONFIRMED": (args.instant_option, {"guard": {"enabled": False}}),
    }
    for outcome, (option, extra) in outcomes.items():
        if not option:
            continue
        order_id = f"{args.order_prefix}-{outcome.lower()}"
        sent = {**booking_input(order_id, option), **extra}
        first = await book(client, queue, sent)
        await client.get_workflow_handle(f"booking-{order_id}").result()
        plain = await client.start_workflow("bookRoom", sent, id=f"booking-{order_id}", task_queue=queue)
        report["retried"][outcome] = {
            "orderId": order_id,
            "first": first,
            "plainStart": await plain.result(),
            "again": await book(client, queue, sent),
            "orderIdAlone": await book(client, queue, {"orderId": order_id}),
        }

    # 7. The confirmed order without a guard has closed with its supplier booking: cancelled by its
    #    id in one call; every later call answers CANCELLED. An order with nothing to cancel is
    #    refused with the reason.
    if "CONFIRMED" in report["retried"]:
        order_id = report["retried"]["CONFIRMED"]["orderId"]
        answer = await cancel(client, queue, order_id, "the guest cancelled")
        report["cancelledClosed"] = {
            "updateAnswer": answer,
            "updateAnswerProblems": problems(answer, "bookRoom.cancel.update-result.schema.json"),
            "startProblems": problems({"orderId": order_id}, "bookRoom.order-id-input.schema.json"),
            "decision": await book(client, queue, {"orderId": order_id}),
        }
    if "NOT_AVAILABLE" in report["retried"]:
        try:
            await cancel(client, queue, report["retried"]["NOT_AVAILABLE"]["orderId"], None)
            report["cancelRefused"] = None
        except WorkflowUpdateFailedError as err:
            report["cancelRefused"] = {"type": getattr(err.cause, "type", None), "message": str(err.cause)}

    # 8. An order through another supplier account: the same input with `supplier`, the id of an
    #    account the workers configure (SUPPLIER_ACCOUNTS); every call of the order goes to it.
    if args.supplier_account:
        order_id = f"{args.order_prefix}-account"
        sent = {**booking_input(order_id, args.instant_option), "supplier": args.supplier_account}
        decision = await book(client, queue, sent)
        state = await client.get_workflow_handle(f"booking-{order_id}").query("bookingState")
        report["throughAccount"] = {
            "inputProblems": problems(sent, "bookRoom.input.schema.json"),
            "decision": decision,
            "supplier": state.get("supplier"),
        }

    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main())
    # The SDK's client leaves threads of its Rust core running, and an interpreter that tears down
    # beside them can abort ("Fatal Python error: PyGILState_Release ... finalizing", a known fault
    # of the temporalio package) after all the work is done. Everything is printed: leave without
    # the teardown, so a finished run always exits 0.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
