import requests


def settle(session: requests.Session, batch_id: str, key: str) -> bool:
    resp = session.post(f"https://gateway.internal/batches/{batch_id}/settle",
                        headers={"Idempotency-Key": key})
    return resp.headers.get("Idempotency-Replayed") == "true"
