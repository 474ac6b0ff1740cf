"""imported contacts

Revision ID: 7aa2f0c35e18
Revises:
Create Date: 2026-11-22 11:05:40.000000
"""
import sqlalchemy as sa
from alembic import op

revision = "7aa2f0c35e18"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "imported_contacts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=32), nullable=False),
        sa.Column("source_ref", sa.String(), nullable=False),
        sa.Column("email", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_unique_constraint(  # expect: unscoped-idempotency-key
        "uq_imported_contacts_source",
        "imported_contacts",
        ["source", "source_ref"],
    )
