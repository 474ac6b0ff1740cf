import os
import random
import time
import uuid

import httpx


class LedgerClient:
    """A payouts client that retries its own requests with one key each."""

    def __init__(self, base_url, max_retries=3):
        self._http = httpx.Client(base_url=base_url)
        self.max_retries = max_retries

    def _new_key(self):
        return f"ledger-{uuid.uuid4()}"

    def _label(self):
        return "payouts"

    def post(self, path, body, options):
        # Made once, before the attempts: every retry resends it.
        if options.idempotency_key is None:
            options.idempotency_key = self._new_key()
        for retries_taken in range(self.max_retries + 1):
            try:
                return self._http.post(
                    path, json=body, headers={"Idempotency-Key": options.idempotency_key}
                )
            except httpx.TransportError:
                time.sleep(2**retries_taken)
        raise RuntimeError("gave up")

    def transfer(self, path, body, headers):
        key = "%032x" % random.getrandbits(128)
        while True:
            try:
                return self._send(path, body, {**headers, "Idempotency-Key": key})
            except httpx.TransportError:
                time.sleep(1)

    def refund(self, path, body, refund_id):
        headers = {}
        for attempt in range(3):
            # Derived from the refund, the same on each attempt; a helper
            # that mints nothing is no fresh key.
            headers["Idempotency-Key"] = f"{self._label()}-{refund_id}"
            try:
                return self._send(path, body, headers)
            except httpx.TransportError:
                time.sleep(attempt)
        raise RuntimeError("gave up")

    def send_all(self, path, bodies):
        # One request per item, no retry: a new key each is right.
        for body in bodies:
            self._send(path, body, {"Idempotency-Key": os.urandom(16).hex()})

    def _send(self, path, body, headers):
        return self._http.post(path, json=body, headers=headers)
