-- Provider event ids: the id always names the same notification, so no
-- request fingerprint is needed.
CREATE TABLE adyen_notification_inbox (
    psp_reference text        NOT NULL,
    event_code    text        NOT NULL,
    received_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (psp_reference, event_code)
);
