from sqlalchemy import String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class PartnerDelivery(Base):
    """A partner's delivery, recorded once: the insert below skips a redelivery."""

    __tablename__ = "relay_drops"
    __table_args__ = (UniqueConstraint("partner", "delivery_ref"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    partner: Mapped[str] = mapped_column(String, nullable=False, index=True)
    delivery_ref: Mapped[str] = mapped_column(String, nullable=False, index=True)
