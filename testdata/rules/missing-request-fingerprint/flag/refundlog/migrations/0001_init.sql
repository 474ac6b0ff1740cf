-- Refunds each wallet asked for, logged once per Idempotency-Key; a retried
-- refund is answered with the entry the first one logged.
create table refunds_log
(
    seq             bigserial primary key,
    wallet_id       varchar   not null,
    data            jsonb     not null,
    idempotency_key varchar(255),
    payload_digest  varchar(64)
);

create unique index refunds_log_ik on refunds_log (wallet_id, idempotency_key);
