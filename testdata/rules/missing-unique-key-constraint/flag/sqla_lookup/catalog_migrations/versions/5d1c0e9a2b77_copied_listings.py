"""copied listings

Revision ID: 5d1c0e9a2b77
Revises:
Create Date: 2026-11-20 09:02:11.000000
"""
import sqlalchemy as sa
from alembic import op

revision = "5d1c0e9a2b77"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "copied_listings",  # expect: missing-unique-key-constraint
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Uuid(), nullable=False),
        sa.Column("origin_kind", sa.String(length=16), nullable=False),
        sa.Column("origin_ref", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_copied_listings_tenant_id_origin_kind_origin_ref",
        "copied_listings",
        ["tenant_id", "origin_kind", "origin_ref"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_table("copied_listings")
