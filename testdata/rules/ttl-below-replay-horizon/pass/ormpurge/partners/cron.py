from datetime import timedelta

from .clock import utc_now
from .repository import AuditRepository, PartnerEventRepository


async def prune_partner_events(session) -> None:
    # As long as the default horizon: no partner window is published.
    await PartnerEventRepository(session).delete_older_than(utc_now() - timedelta(days=30))


async def prune_audit(session) -> None:
    # An audit log is no store, whatever its name says.
    await AuditRepository(session).delete_audit_before(before=utc_now() - timedelta(days=1))
