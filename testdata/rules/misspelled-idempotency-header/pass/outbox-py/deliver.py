"""Delivers queued merchant notifications, signed as Standard Webhooks."""
from collections.abc import Mapping

import httpx


async def deliver(client: httpx.AsyncClient, message, signature: str, sent_at: int) -> int:
    headers: Mapping[str, str] = {
        "content-type": "application/json",
        "webhook-id": message.public_id,
        "webhook-timestamp": str(sent_at),
        "webhook-signature": signature,
    }
    # The delivery log keeps the id as a JSON field, which is no header.
    log = {"webhook_id": message.public_id, "status": "sending"}
    response = await client.post(
        message.endpoint_url, content=message.body, headers=headers, json=None
    )
    log["status"] = response.status_code
    return response.status_code


def audit_row(transfer) -> dict:
    params = {}
    params.update({"paypal_request_id": transfer.reference})
    return params
