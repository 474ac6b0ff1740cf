from datetime import datetime

from sqlalchemy import delete
from sqlalchemy.dialects.postgresql import insert

from .models import AuditEvent, PartnerEvent


class PartnerEventRepository:
    def __init__(self, session):
        self.session = session

    async def record(self, partner: str, delivery_ref: str, at: datetime) -> bool:
        statement = (
            insert(PartnerEvent)
            .values(partner=partner, delivery_ref=delivery_ref, received_at=at)
            .on_conflict_do_nothing(index_elements=["partner", "delivery_ref"])
            .returning(PartnerEvent.id)
        )
        result = await self.session.execute(statement)
        return result.scalar() is not None

    async def delete_older_than(self, before: datetime) -> None:
        await self.session.execute(
            delete(PartnerEvent).where(PartnerEvent.received_at < before)
        )


class AuditRepository:
    def __init__(self, session):
        self.session = session

    async def delete_audit_before(self, before: datetime) -> None:
        await self.session.execute(delete(AuditEvent).where(AuditEvent.created_at < before))
