from datetime import timedelta

from .clock import utc_now
from .repository import PartnerEventRepository


async def prune_partner_events(session) -> None:
    repository = PartnerEventRepository(session)
    # A partner resends a delivery for days; six hours forgets it first.
    await repository.delete_older_than(utc_now() - timedelta(hours=6))  # expect: ttl-below-replay-horizon
