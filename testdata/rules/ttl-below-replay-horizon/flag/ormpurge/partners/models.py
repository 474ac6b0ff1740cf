from datetime import datetime

from sqlalchemy import DateTime, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class PartnerEvent(Base):
    """Deliveries from partners, recorded once per (partner, delivery)."""

    __tablename__ = "partner_events"
    __table_args__ = (UniqueConstraint("partner", "delivery_ref"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    partner: Mapped[str] = mapped_column(String, nullable=False)
    delivery_ref: Mapped[str] = mapped_column(String, nullable=False)
    received_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
