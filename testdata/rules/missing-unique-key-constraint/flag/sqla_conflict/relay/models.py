from sqlalchemy import String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class PartnerDelivery(Base):
    """A partner's delivery, recorded once: the insert below skips a redelivery."""

    __tablename__ = "relay_drops"  # expect: missing-unique-key-constraint

    id: Mapped[int] = mapped_column(primary_key=True)
    partner: Mapped[str] = mapped_column(String, nullable=False, index=True)
    delivery_ref: Mapped[str] = mapped_column(String, nullable=False, index=True)
