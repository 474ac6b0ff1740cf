-- Provider event ids, unpartitioned, unique on the event id.
CREATE TABLE processed_webhook_events (
    provider    text        NOT NULL,
    event_id    text        NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (event_id)
);

-- Audit log of deliveries, partitioned by time: not a guard, and says so.
CREATE TABLE webhook_delivery_log (
    delivery_id bigserial,
    event_id    text        NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (delivery_id, received_at)
) PARTITION BY RANGE (received_at);
