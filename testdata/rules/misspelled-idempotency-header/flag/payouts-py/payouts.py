"""Payouts through the partner bank's API."""
import uuid

import requests

BANK_URL = "https://bank.example.com/v2/payouts"


def send_payout(session: requests.Session, payout: dict) -> dict:
    key = payout.get("idempotency_key") or str(uuid.uuid4())
    resp = session.post(
        BANK_URL,
        json=payout,
        headers={"Idempotency-Key": key, "Content-Type": "application/json"},
    )
    resp.raise_for_status()
    replayed = resp.headers.get("Idempotent-Replay") == "true"  # expect: misspelled-idempotency-header
    return {"body": resp.json(), "replayed": replayed}
