"""Payouts through the partner bank's API, and the Django view that takes them."""
import os
import uuid

import requests
from django.http import JsonResponse

BANK_URL = "https://bank.example.com/v2/payouts"
KEY_FIELD = os.environ.get("IDEMPOTENCY_KEY_FIELD", "idempotency_key")


def send_payout(session: requests.Session, payout: dict) -> dict:
    key = payout.get("idempotency_key") or str(uuid.uuid4())
    resp = session.post(
        BANK_URL,
        json={**payout, "idempotency_key": key},
        headers={"Idempotency-Key": key},
    )
    resp.raise_for_status()
    return {"body": resp.json(), "replayed": resp.headers.get("Idempotent-Replayed") == "true"}


def create_payout(request):
    # Django exposes request headers in META with an HTTP_ prefix.
    key = request.META.get("HTTP_IDEMPOTENCY_KEY") or request.headers.get("Idempotency-Key")
    return JsonResponse({"idempotency_key": key, "resource": "idempotency-keys"})
