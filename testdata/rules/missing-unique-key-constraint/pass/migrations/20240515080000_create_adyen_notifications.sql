-- Notifications from the acquirer: one row per PSP reference and event
-- code, so that a redelivered notification is refused by the database.
CREATE TABLE adyen_notifications (
    id            BIGSERIAL   PRIMARY KEY,
    psp_reference TEXT        NOT NULL UNIQUE,
    event_code    TEXT        NOT NULL,
    success       BOOLEAN     NOT NULL,
    received_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Customers mirrored from the provider; otherwise unrelated to deliveries.
CREATE TABLE stripe_customers (
    id          TEXT PRIMARY KEY,
    email       TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
