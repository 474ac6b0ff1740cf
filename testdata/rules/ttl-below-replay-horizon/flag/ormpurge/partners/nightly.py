from datetime import datetime, timedelta, timezone

from .repository import PartnerEventRepository


async def nightly(session) -> None:
    repository = PartnerEventRepository(session)
    await repository.delete_older_than(
        before=datetime.now(timezone.utc) - timedelta(hours=8)  # expect: ttl-below-replay-horizon
    )
