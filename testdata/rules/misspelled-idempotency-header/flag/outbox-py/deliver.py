"""Delivers queued merchant notifications, signed as Standard Webhooks."""
from collections.abc import Mapping

import httpx


async def deliver(client: httpx.AsyncClient, message, signature: str, sent_at: int) -> int:
    headers: Mapping[str, str] = {
        "content-type": "application/json",
        "webhook_id": message.public_id,  # expect: misspelled-idempotency-header
        "webhook-timestamp": str(sent_at),
        "webhook-signature": signature,
    }
    response = await client.post(message.endpoint_url, content=message.body, headers=headers)
    return response.status_code


def partner_headers(transfer) -> dict:
    extra_headers = {}
    extra_headers.update({"PayPal_Request_Id": transfer.reference})  # expect: misspelled-idempotency-header
    return extra_headers
