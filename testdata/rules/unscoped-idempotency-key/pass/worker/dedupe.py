import redis


def claim(r: redis.Redis, org_id: str, idempotency_key: str) -> bool:
    key = f"idem:{org_id}:{idempotency_key}"
    return bool(r.set(key, "pending", nx=True))


def claim_formatted(r: redis.Redis, workspace_id: str, key: str) -> bool:
    return bool(r.set("idempotency:{}:{}".format(workspace_id, key), "pending", nx=True))
