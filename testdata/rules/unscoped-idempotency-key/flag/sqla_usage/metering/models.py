from uuid import UUID

from sqlalchemy import ForeignKey, Index, String, Uuid
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class MeterReading(Base):
    """A reading an organization sends, deduplicated on the id it chose."""

    __tablename__ = "meter_readings"
    __table_args__ = (
        Index(  # expect: unscoped-idempotency-key
            "ix_meter_readings_source_ref",
            "source_ref",
            unique=True,
        ),
    )

    id: Mapped[UUID] = mapped_column(Uuid, primary_key=True)
    organization_id: Mapped[UUID] = mapped_column(
        Uuid, ForeignKey("organizations.id"), nullable=False
    )
    source_ref: Mapped[str] = mapped_column(String, nullable=False)
    quantity: Mapped[int] = mapped_column(nullable=False)
