-- Provider deliveries, each refused a second time by its own key.
CREATE TABLE stripe_events (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    event_id    text        NOT NULL,
    type        text        NOT NULL,
    payload     jsonb       NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT stripe_events_event_id_key UNIQUE (event_id)
);

CREATE TABLE paypal_webhook_events (
    id          varchar(64) PRIMARY KEY,
    event_type  text        NOT NULL,
    resource    jsonb,
    received_at timestamptz NOT NULL DEFAULT now()
);

-- Adyen sends one notification per (pspReference, eventCode): a refund of
-- a payment has the payment's reference and its own event code.
CREATE TABLE adyen_notifications (
    id            bigserial   PRIMARY KEY,
    psp_reference varchar(16) NOT NULL,
    event_code    text        NOT NULL,
    success       boolean     NOT NULL,
    body          jsonb       NOT NULL,
    UNIQUE (psp_reference, event_code)
);
