from sqlalchemy.dialects.postgresql import insert as pg_insert

from relay.models import PartnerDelivery


async def record_delivery(session, partner: str, ref: str) -> bool:
    """True the first time a delivery is seen; a redelivery conflicts."""
    statement = (
        pg_insert(PartnerDelivery)
        .values(partner=partner, delivery_ref=ref)
        .on_conflict_do_nothing(index_elements=["partner", "delivery_ref"])
        .returning(PartnerDelivery.id)
    )
    inserted = await session.scalar(statement)
    return inserted is not None
