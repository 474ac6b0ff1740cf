from sqlalchemy import Index, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class CarriedPlan(Base):
    """A subscription plan carried over from a merchant's previous processor."""

    __tablename__ = "carried_plans"  # expect: missing-unique-key-constraint
    __table_args__ = (
        Index(
            "ix_carried_plans_merchant_id_processor_plan_ref",
            "merchant_id",
            "processor",
            "plan_ref",
            unique=False,
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    merchant_id: Mapped[int] = mapped_column(nullable=False)
    processor: Mapped[str] = mapped_column(String(32), nullable=False)
    plan_ref: Mapped[str] = mapped_column(String, nullable=False)
    amount: Mapped[int] = mapped_column(nullable=False)
