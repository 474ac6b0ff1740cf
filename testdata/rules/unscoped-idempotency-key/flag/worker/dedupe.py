import redis


def claim(r: redis.Redis, account_id: str, idempotency_key: str) -> bool:
    key = f"idempotency:{idempotency_key}"  # expect: unscoped-idempotency-key
    return bool(r.set(key, account_id, nx=True))
