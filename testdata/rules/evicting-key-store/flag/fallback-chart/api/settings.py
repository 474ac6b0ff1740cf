import os

REDIS_URL = os.environ.get("REDIS_URL", "redis://localhost:6379/0")

# Dedup markers of incoming deliveries; a separate instance when one is set.
DEDUP_REDIS_URL = os.environ.get("DEDUP_REDIS_URL") or os.environ.get("REDIS_URL")
