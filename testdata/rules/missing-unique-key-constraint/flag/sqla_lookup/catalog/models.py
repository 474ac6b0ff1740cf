from sqlalchemy import ForeignKey, Index, String, Uuid
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class CopiedListing(Base):
    """A listing copied from a tenant's old shop, once per source listing."""

    __tablename__ = "copied_listings"
    __table_args__ = (
        Index(
            "ix_copied_listings_tenant_id_origin_kind_origin_ref",
            "tenant_id",
            "origin_kind",
            "origin_ref",
            unique=True,
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tenant_id: Mapped[str] = mapped_column(Uuid, ForeignKey("tenants.id"), nullable=False)
    origin_kind: Mapped[str] = mapped_column(String(16), nullable=False)
    origin_ref: Mapped[str] = mapped_column(String, nullable=False)
    title: Mapped[str] = mapped_column(String, nullable=False)
