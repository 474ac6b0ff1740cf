-- Every delivery the payment provider sends, as received. The handler
-- fills `ref` with the provider's event id and dedups on it (it skips a
-- delivery whose id is already here), but nothing here refuses a second
-- row with that id.
CREATE TABLE received_hooks ( -- expect: missing-unique-key-constraint
    id          bigserial   PRIMARY KEY,
    source      text        NOT NULL,
    ref         text        NOT NULL,
    body        jsonb       NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX received_hooks_ref_idx ON received_hooks (ref);
