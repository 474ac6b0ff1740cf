"""processed stripe events

Revision ID: 3f2a9c1d7e44
Revises: 9b1e07c2a5d3
Create Date: 2026-11-02 10:14:55.120394
"""
import sqlalchemy as sa
from alembic import op

revision = "3f2a9c1d7e44"
down_revision = "9b1e07c2a5d3"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "processed_stripe_events",  # expect: missing-unique-key-constraint
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.String(length=255), nullable=False),
        sa.Column("event_type", sa.String(length=128), nullable=False),
        sa.Column("processed_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_processed_stripe_events_event_id", "processed_stripe_events", ["event_id"])


def downgrade() -> None:
    op.drop_index("ix_processed_stripe_events_event_id", table_name="processed_stripe_events")
    op.drop_table("processed_stripe_events")
