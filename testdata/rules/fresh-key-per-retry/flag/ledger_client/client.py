import os
import random
import time
import uuid

import httpx


class LedgerClient:
    """A payouts client that retries its own requests."""

    def __init__(self, base_url, max_retries=3):
        self._http = httpx.Client(base_url=base_url)
        self.max_retries = max_retries

    def _new_key(self):
        return f"ledger-{uuid.uuid4()}"

    def post(self, path, body, options):
        for retries_taken in range(self.max_retries + 1):
            options.idempotency_key = self._new_key()  # expect: fresh-key-per-retry
            try:
                return self._http.post(
                    path, json=body, headers={"Idempotency-Key": options.idempotency_key}
                )
            except httpx.TransportError:
                time.sleep(2**retries_taken)
        raise RuntimeError("gave up")

    def transfer(self, path, body, headers):
        while True:
            try:
                return self._send(path, body, {**headers, "Idempotency-Key": "%032x" % random.getrandbits(128)})  # expect: fresh-key-per-retry
            except httpx.TransportError:
                time.sleep(1)

    def refund(self, path, body):
        headers = {}
        for attempt in range(3):
            headers["Idempotency-Key"] = os.urandom(16).hex()  # expect: fresh-key-per-retry
            try:
                return self._send(path, body, headers)
            except httpx.TransportError:
                time.sleep(attempt)
        raise RuntimeError("gave up")

    def _send(self, path, body, headers):
        return self._http.post(path, json=body, headers=headers)
