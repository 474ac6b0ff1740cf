from sqlalchemy import select

from plans.models import CarriedPlan


async def carry_plan(session, merchant_id, processor, plan):
    """Stage a plan once: a rerun of the carry-over finds the staged row."""
    existing = await session.scalar(
        select(CarriedPlan).where(  # expect: check-then-insert
            CarriedPlan.merchant_id == merchant_id,
            CarriedPlan.processor == processor,
            CarriedPlan.plan_ref == plan.ref,
        )
    )
    if existing is not None:
        return existing
    session.add(
        CarriedPlan(
            merchant_id=merchant_id,
            processor=processor,
            plan_ref=plan.ref,
            amount=plan.amount,
        )
    )
