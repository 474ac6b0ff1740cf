import redis


def claim(r: redis.Redis, wallet_id: str, key: str) -> bool:
    # A posting runs once per (wallet, key).
    return bool(r.set(f"idempotency:{wallet_id}:{key}", "1", nx=True, ex=7 * 86400))  # expect: ttl-below-replay-horizon
