from sqlalchemy import insert

from metering.models import MeterReading


async def ingest(session, readings: list[dict]) -> int:
    """Stores each reading once per organization; returns how many were new."""
    statement = (
        insert(MeterReading)
        .on_conflict_do_nothing(index_elements=["organization_id", "source_ref"])
        .returning(MeterReading.id)
    )
    result = await session.execute(statement, readings)
    return len(result.all())
