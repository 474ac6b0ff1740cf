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
        "processed_stripe_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.String(length=255), nullable=False),
        sa.Column("event_type", sa.String(length=128), nullable=False),
        sa.Column("processed_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_processed_stripe_events_event_id", "processed_stripe_events", ["event_id"], unique=True
    )
    op.create_table(
        "adyen_notifications",
        sa.Column("psp_reference", sa.String(length=64), primary_key=True),
        sa.Column("event_code", sa.String(length=64), nullable=False),
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.BigInteger(), primary_key=True),
        sa.Column("provider", sa.String(length=32), nullable=False),
        sa.Column("delivery_id", sa.String(length=128), nullable=False),
        sa.UniqueConstraint("provider", "delivery_id", name="uq_webhook_deliveries_provider_delivery"),
    )
    op.execute(
        "CREATE UNIQUE INDEX ux_paypal_events_event_id ON paypal_events (event_id)"
    )


def downgrade() -> None:
    op.drop_table("webhook_deliveries")
    op.drop_table("adyen_notifications")
    op.drop_index("ix_processed_stripe_events_event_id", table_name="processed_stripe_events")
    op.drop_table("processed_stripe_events")
